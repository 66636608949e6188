internal import CCurl

/// Idle easy handles kept for the next transfers. A reused handle keeps the buffers curl
/// allocated for it, which saves an allocation of the download buffer (and the page faults of
/// touching it) per transfer. Connections live in the multi handle either way.
///
/// Handles are reused only with libcurl 8.1.0 or later. Before it (Debian 12 ships 7.88.1), a
/// reset handle keeps a pointer to the previous transfer's last header, and a response whose
/// first header line is folded (starts with a space) makes curl unfold into that freed header: a
/// heap use-after-free inside curl that any origin can trigger (found by Fuzz/fuzz-http-response;
/// curl's fix is "headers: clear (possibly) lingering pointer in init", curl/curl#11103).
struct EasyHandlePool {
    private var idle: [UnsafeMutableRawPointer] = []
    private let capacity: Int

    /// Whether the linked libcurl can reuse a reset handle safely (8.1.0 or later).
    static let reuseIsSafe: Bool = {
        guard let info = curl_version_info(CURLVERSION_FIRST) else { return false }
        return info.pointee.version_num >= 0x08_01_00
    }()

    init(capacity: Int) { self.capacity = Self.reuseIsSafe ? capacity : 0 }

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
