import Digests
import Foundation

enum Digest {
    /// SHA-256 of `data`.
    static func bytes(of data: Data) -> Data { Data(SHA256.hash(data)) }

    /// The SHA-256 of `text`'s UTF-8, in lowercase hex.
    static func hex(of text: String) -> String { SHA256.hash(utf8: text).hex }

    /// SHA-256 over the parts in order, base64url without padding.
    static func base64URL(of parts: [Data]) -> String {
        var hash = SHA256.Hasher()
        for part in parts { hash.update(part) }
        return ProxyRequest.base64URLEncoded(Data(hash.finalize()))
    }
}
