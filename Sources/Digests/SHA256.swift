import CDigest
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// SHA-256 (FIPS 180-4), computed by the system's OpenSSL libcrypto.
///
/// libcrypto cannot fail to hash bytes in memory short of running out of memory or a provider
/// configuration without SHA-256; either stops the process with a precondition failure that
/// names the algorithm, rather than return a wrong digest.
public enum SHA256 {
    /// The length of a digest in bytes.
    public static let byteCount = Int(CDIGEST_SHA256_LENGTH)

    /// The SHA-256 of `bytes` (`Data`, `[UInt8]`, a buffer pointer, another digest…).
    public static func hash(_ bytes: some ContiguousBytes) -> DigestBytes {
        DigestBytes("SHA-256", count: byteCount, of: bytes, by: cdigest_sha256)
    }

    /// The SHA-256 of `text`'s UTF-8 bytes, without copying them.
    public static func hash(utf8 text: String) -> DigestBytes {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    /// A SHA-256 computed over bytes given in parts: the same digest as ``SHA256/hash(_:)`` over
    /// the parts joined, wherever they are split.
    ///
    /// Non-copyable, so that one hash state has one owner: ``finalize()`` consumes it, and a
    /// hasher dropped unfinished frees its state.
    public struct Hasher: ~Copyable, @unchecked Sendable {
        // @unchecked: the EVP_MD_CTX is reached only through this uniquely owned value, and
        // libcrypto ties it to no thread.
        private let context: OpaquePointer

        /// A hasher over no bytes yet.
        public init() {
            guard let context = cdigest_sha256_new() else {
                preconditionFailure("libcrypto failed to start SHA-256 (out of memory, or a provider configuration without it)")
            }
            self.context = context
        }

        /// Adds `bytes` to the hash.
        public mutating func update(_ bytes: some ContiguousBytes) {
            let ok = bytes.withUnsafeBytes { cdigest_sha256_update(context, $0.baseAddress, $0.count) }
            precondition(ok == 1, "libcrypto failed to update SHA-256")
        }

        /// The digest of every byte added, in order.
        public consuming func finalize() -> DigestBytes {
            let context = self.context
            discard self
            defer { cdigest_sha256_free(context) }
            return DigestBytes(count: SHA256.byteCount, algorithm: "SHA-256") { cdigest_sha256_final(context, $0) }
        }

        deinit { cdigest_sha256_free(context) }
    }
}
