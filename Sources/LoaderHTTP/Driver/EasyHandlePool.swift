internal import CCurl

/// Idle easy handles kept for the next transfers. A reused handle keeps the buffers curl
/// allocated for it, which saves an allocation of the download buffer (and the page faults of
/// touching it) per transfer. Connections live in the multi handle either way.
struct EasyHandlePool {
    private var idle: [UnsafeMutableRawPointer] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// A handle with every option at its default.
    mutating func take() -> UnsafeMutableRawPointer? {
        idle.popLast() ?? curl_easy_init()
    }

    /// Takes back a handle that is no longer in the multi handle. Handles that ran the cookie
    /// engine are not reused: a reset does not clear a handle's own cookies.
    mutating func give(_ handle: UnsafeMutableRawPointer, usedCookies: Bool) {
        guard !usedCookies, idle.count < capacity else {
            curl_easy_cleanup(handle)
            return
        }
        curl_easy_reset(handle)
        idle.append(handle)
    }

    mutating func removeAll() {
        for handle in idle { curl_easy_cleanup(handle) }
        idle.removeAll()
    }
}
