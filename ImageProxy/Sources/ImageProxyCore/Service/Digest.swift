import Crypto
import Foundation

enum Digest {
    /// SHA-256 of `data`.
    static func bytes(of data: Data) -> Data { Data(SHA256.hash(data: data)) }

    /// The SHA-256 of `text`'s UTF-8, in lowercase hex.
    static func hex(of text: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 2 * SHA256.byteCount) { out in
            var i = 0
            for byte in SHA256.hash(data: Data(text.utf8)) {
                out[i] = digits[Int(byte >> 4)]
                out[i + 1] = digits[Int(byte & 15)]
                i += 2
            }
            return i
        }
    }

    /// SHA-256 over the parts in order, base64url without padding.
    static func base64URL(of parts: [Data]) -> String {
        var hash = SHA256()
        for part in parts { hash.update(data: part) }
        return ProxyRequest.base64URLEncoded(Data(hash.finalize()))
    }
}
