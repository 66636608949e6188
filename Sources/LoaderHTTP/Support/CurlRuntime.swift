internal import CCurl

/// Process-wide libcurl set-up, done once before the first handle is created.
enum CurlRuntime {
    /// `curl_global_init` is not guaranteed thread-safe on every build; a `static let` runs it
    /// exactly once, on first use, under Swift's one-time initialisation lock.
    static let initialized: Bool = CCurl_global_init() == CURLE_OK

    /// libcurl's version, e.g. `7.88.1`.
    static let version: String = {
        _ = initialized
        guard let text = curl_version() else { return "unknown" }
        let first = String(cString: text).split(separator: " ").first ?? ""
        return first.split(separator: "/").last.map(String.init) ?? "unknown"
    }()
}
