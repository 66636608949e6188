import Crypto
import Foundation

enum Digest {
    /// SHA-256 of `data`.
    static func bytes(of data: Data) -> Data { Data(SHA256.hash(data: data)) }

    /// SHA-256 over the parts in order, base64url without padding.
    static func base64URL(of parts: [Data]) -> String {
        var hash = SHA256()
        for part in parts { hash.update(data: part) }
        return ProxyRequest.base64URLEncoded(Data(hash.finalize()))
    }
}
