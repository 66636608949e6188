import Digests
import Foundation

/// Cache key → Redis key: the prefix, then the hex SHA-256 of the key's UTF-8 bytes.
///
/// The cache key itself never reaches Redis, so CRLF, spaces, glob characters or a 10 KB key
/// cannot become protocol or pattern syntax, and every Redis key has the same short length.
struct KeyNaming: Sendable {
    let prefix: String

    func redisKey(for key: String) -> Data {
        var out = Data(capacity: prefix.utf8.count + 2 * SHA256.byteCount)
        out.append(contentsOf: prefix.utf8)
        out.append(contentsOf: SHA256.hash(utf8: key).hex.utf8)
        return out
    }

    /// A `SCAN MATCH` pattern for every key under the prefix (glob characters in it escaped).
    var pattern: Data {
        var out = Data()
        for byte in prefix.utf8 {
            if "*?[]\\".utf8.contains(byte) { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "*"))
        return out
    }
}
