import Digests
import Foundation

/// imgproxy's URL signature: HMAC-SHA256 over `salt + path` with `key`, in base64url without
/// padding, where `path` is everything after `/{signature}` (starting with `/`).
public struct ProxySigner: Sendable {
    // Plain arrays: a Data kept in a global hides its storage from LeakSanitizer (its pointer
    // carries enum tag bits).
    private let keyBytes: [UInt8]
    private let salt: [UInt8]

    /// A signer from hex-encoded key and salt; nil when either is not hex or the key is empty.
    public init?(keyHex: String, saltHex: String) {
        guard let key = Self.bytes(hex: keyHex), !key.isEmpty, let salt = Self.bytes(hex: saltHex) else { return nil }
        self.keyBytes = Array(key)
        self.salt = Array(salt)
    }

    /// The signature of `path`.
    public func signature(for path: String) -> String {
        ProxyRequest.base64URLEncoded(Data(mac(for: path)))
    }

    /// The signature of `path` from the first `size` bytes (1–32) of the HMAC (imgproxy's
    /// `IMGPROXY_SIGNATURE_SIZE`).
    public func signature(for path: String, size: Int) -> String {
        ProxyRequest.base64URLEncoded(Data(mac(for: path).prefix(min(max(size, 1), HMACSHA256.byteCount))))
    }

    /// Whether `signature` signs `path` (compared in constant time).
    public func isValid(_ signature: String, for path: String) -> Bool {
        guard let code = ProxyRequest.base64URLDecoded(Substring(signature)), code.count == HMACSHA256.byteCount else { return false }
        return mac(for: path).constantTimeEquals(code)
    }

    /// Whether `mac` is the first `size` bytes (1–32) of the HMAC of `path` (imgproxy's
    /// `IMGPROXY_SIGNATURE_SIZE`), compared in constant time.
    public func isValid(truncated mac: Data, size: Int, for path: String) -> Bool {
        let size = min(max(size, 1), HMACSHA256.byteCount)
        guard mac.count == size else { return false }
        return zip(mac, self.mac(for: path).prefix(size)).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The HMAC-SHA256 of `salt + path` under the key.
    private func mac(for path: String) -> DigestBytes {
        var message = salt
        message.append(contentsOf: path.utf8)
        return HMACSHA256.authenticationCode(for: message, key: keyBytes)
    }

    static func bytes(hex: String) -> Data? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// The value of one hex digit (either case), or nil.
    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
