import CDigest
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HMAC-SHA256 (RFC 2104, FIPS 198-1), computed by the system's OpenSSL libcrypto.
///
/// Keys of any length are accepted (longer than 64 bytes, they are hashed first, as the RFC
/// says). libcrypto failing on bytes in memory (out of memory) stops the process with a
/// precondition failure that names the algorithm.
public enum HMACSHA256 {
    /// The length of a MAC in bytes.
    public static let byteCount = Int(CDIGEST_SHA256_LENGTH)

    /// The HMAC-SHA256 of `message` under `key`.
    public static func authenticationCode(for message: some ContiguousBytes, key: some ContiguousBytes) -> DigestBytes {
        key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                DigestBytes(count: byteCount, algorithm: "HMAC-SHA256") {
                    cdigest_hmac_sha256(key.baseAddress, key.count, message.baseAddress, message.count, $0)
                }
            }
        }
    }

    /// Whether `code` is the HMAC-SHA256 of `message` under `key`, compared in constant time.
    /// A code of another length is never valid.
    public static func isValidAuthenticationCode(
        _ code: some ContiguousBytes, for message: some ContiguousBytes, key: some ContiguousBytes
    ) -> Bool {
        authenticationCode(for: message, key: key).constantTimeEquals(code)
    }
}
