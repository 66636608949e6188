import CDigest
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// MD5 (RFC 1321), computed by the system's OpenSSL libcrypto. For naming things only (the disk
/// cache's SDWebImage-compatible file names): MD5 is broken for anything an attacker chooses.
///
/// A libcrypto that cannot compute MD5 (a FIPS-only provider configuration) or runs out of memory
/// stops the process with a precondition failure that names the algorithm.
public enum MD5 {
    /// The length of a digest in bytes.
    public static let byteCount = Int(CDIGEST_MD5_LENGTH)

    /// The MD5 of `bytes`.
    public static func hash(_ bytes: some ContiguousBytes) -> DigestBytes {
        DigestBytes("MD5", count: byteCount, of: bytes, by: cdigest_md5)
    }
}
