import Foundation
import ImageKernel

extension HTTPLoader {
    /// An ``ImageKernel/ImageContextKey`` that pins the addresses a load connects to, by host
    /// name, instead of resolving the name again (curl's `CURLOPT_RESOLVE`).
    ///
    /// A service that checks a source's addresses against a policy (no loopback, no private
    /// ranges) pins the addresses it checked, so that a second resolution answering differently
    /// (DNS rebinding) cannot send the request elsewhere. Keys are host names as in the URL (any
    /// case), values IPv4 or IPv6 addresses; a host that is not listed is resolved as usual.
    /// Loads with different pins never share a transfer. curl keeps a pin in its DNS cache for
    /// its usual lifetime (a minute), so other loads of the same host and port meanwhile connect
    /// there too; a connection already open to that host may be reused.
    ///
    /// ```swift
    /// context[HTTPLoader.PinnedAddresses.self] = ["images.example.com": ["203.0.113.7"]]
    /// ```
    public enum PinnedAddresses: ImageContextKey {
        public typealias Value = [String: [String]]
    }
}

extension TransferSpec {
    /// `CURLOPT_RESOLVE` lines (`+host:port:addr,addr`, `+` for entries that expire like
    /// resolved ones) for the pins that concern `url`'s host, validated so that nothing but
    /// addresses reaches curl.
    static func resolveLines(for url: URL, pins: [String: [String]]?) throws(ImageKernelError) -> [String] {
        guard let pins, !pins.isEmpty, let host = url.host?.lowercased() else { return [] }
        guard let addresses = pins.first(where: { $0.key.lowercased() == host })?.value else { return [] }
        var parsed: [String] = []
        for address in addresses {
            var v4 = in_addr(), v6 = in6_addr()
            if inet_pton(AF_INET, address, &v4) == 1 {
                parsed.append(address)
            } else if inet_pton(AF_INET6, address, &v6) == 1 {
                parsed.append("[\(address)]")
            } else {
                throw .http(.invalidURL, "a pinned address of \(host) is not an IP address: \(address)")
            }
        }
        guard !parsed.isEmpty else { throw .http(.invalidURL, "no address pinned for \(host)") }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        let name = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return ["+\(name):\(port):\(parsed.joined(separator: ","))"]
    }
}
