import Foundation

/// Everything that decides what goes on the wire for one load, and so whether two loads may share
/// one transfer: two loads coalesce exactly when their specs are equal.
///
/// The spec holds the final request (URL and headers after merging, the headers filter, the
/// cache validators and the request modifier) plus the options that change how curl talks to the
/// server (cookies, certificate checks). Per-caller choices — priority, progressive delivery —
/// are not part of it: they belong to each caller's token.
struct TransferSpec: Hashable, Sendable {
    struct Header: Hashable, Sendable {
        let name: String
        let value: String
    }

    let url: URL
    /// Sorted by lower-cased name, so equal header sets give equal specs.
    let headers: [Header]
    let handleCookies: Bool
    let allowInvalidCertificates: Bool
    /// `CURLOPT_RESOLVE` lines pinning the host's addresses (``HTTPLoader/PinnedAddresses``).
    let resolve: [String]
    /// Computed once: the driver hashes a spec several times per transfer.
    private let precomputedHash: Int

    init(url: URL, headers: [String: String], handleCookies: Bool, allowInvalidCertificates: Bool, resolve: [String] = []) {
        self.url = url
        self.headers = headers.map { Header(name: $0.key, value: $0.value) }
            .sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) }
        self.handleCookies = handleCookies
        self.allowInvalidCertificates = allowInvalidCertificates
        self.resolve = resolve
        var hasher = Hasher()
        hasher.combine(url)
        hasher.combine(self.headers)
        hasher.combine(handleCookies)
        hasher.combine(allowInvalidCertificates)
        hasher.combine(resolve)
        precomputedHash = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) { hasher.combine(precomputedHash) }

    static func == (a: TransferSpec, b: TransferSpec) -> Bool {
        a.precomputedHash == b.precomputedHash && a.url == b.url && a.headers == b.headers
            && a.handleCookies == b.handleCookies && a.allowInvalidCertificates == b.allowInvalidCertificates
            && a.resolve == b.resolve
    }

    /// Whether the request carries a validator, so a 304 means "your copy is current".
    var isConditional: Bool {
        headers.contains {
            let name = $0.name.lowercased()
            return (name == "if-none-match" || name == "if-modified-since") && !$0.value.isEmpty
        }
    }

    /// The lines for `CURLOPT_HTTPHEADER`. An empty value becomes `Name:`, which makes curl drop
    /// a header it would add itself.
    var curlHeaderLines: [String] {
        headers.map { "\($0.name): \($0.value)" }
    }
}
