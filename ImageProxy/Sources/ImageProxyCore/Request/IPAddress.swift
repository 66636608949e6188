import Foundation
import ImageKernel
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address, for the origin policy's range checks.
struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 or 16 bytes, network order.
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Loopback, private (RFC 1918, unique local), link-local, carrier-grade NAT, unspecified,
    /// multicast, broadcast and the documentation/benchmark ranges; IPv4-mapped IPv6 by its IPv4.
    var isInternal: Bool {
        if bytes.count == 4 { return Self.isInternalV4(bytes) }
        let b = bytes
        if b[0..<10].allSatisfy({ $0 == 0 }), b[10] == 0xff, b[11] == 0xff { return Self.isInternalV4(Array(b[12..<16])) }
        if b[0..<15].allSatisfy({ $0 == 0 }) { return true }  // :: and ::1
        if b[0] & 0xfe == 0xfc { return true }  // fc00::/7 unique local
        if b[0] == 0xfe, b[1] & 0xc0 == 0x80 { return true }  // fe80::/10 link-local
        if b[0] == 0xff { return true }  // multicast
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0d, b[3] == 0xb8 { return true }  // 2001:db8::/32 documentation
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xff, b[3] == 0x9b { return Self.isInternalV4(Array(b[12..<16])) }  // 64:ff9b::/96 NAT64
        return false
    }

    private static func isInternalV4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): true
        case (100, 64...127): true  // carrier-grade NAT
        case (169, 254): true
        case (172, 16...31): true
        case (192, 168): true
        case (192, 0) where b[2] == 0 || b[2] == 2: true
        case (198, 18...19): true
        case (198, 51) where b[2] == 100: true
        case (203, 0) where b[2] == 113: true
        case (224...255, _): true
        default: false
        }
    }

    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let text = copy.withUnsafeMutableBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard text != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Resolves host names with getaddrinfo, keeping answers for a minute.
final class HostResolver: Sendable {
    private let cache = Locked<[String: (addresses: [IPAddress], expires: ContinuousClock.Instant)]>([:])

    func addresses(of host: String) -> [IPAddress] {
        let now = ContinuousClock.now
        if let hit = cache.withLock({ $0[host] }), hit.expires > now { return hit.addresses }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        var found: [IPAddress] = []
        if getaddrinfo(host, nil, &hints, &list) == 0 {
            var node = list
            while let entry = node {
                if let address = entry.pointee.ai_addr {
                    if entry.pointee.ai_family == AF_INET {
                        let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                        found.append(IPAddress(bytes: withUnsafeBytes(of: v4) { Array($0) }))
                    } else if entry.pointee.ai_family == AF_INET6 {
                        let v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                        found.append(IPAddress(bytes: withUnsafeBytes(of: v6) { Array($0) }))
                    }
                }
                node = entry.pointee.ai_next
            }
            freeaddrinfo(list)
        }
        cache.withLock { $0[host] = (found, now + .seconds(60)) }
        return found
    }
}
