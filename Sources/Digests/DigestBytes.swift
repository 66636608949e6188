import CDigest
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bytes of a digest or MAC (up to 32), kept inline: making one allocates nothing.
///
/// A `RandomAccessCollection` of `UInt8` (so `Data(digest)`, `Array(digest)` and `for byte in
/// digest` work) and `ContiguousBytes` (so it can key the next HMAC, as SigV4's key chain does).
/// `==` compares in ordinary time; use ``constantTimeEquals(_:)`` for a MAC someone sent.
public struct DigestBytes: Sendable, Hashable, RandomAccessCollection, ContiguousBytes, CustomStringConvertible {
    /// The most bytes a value holds: a SHA-256 digest.
    public static let maxCount = 32

    private var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// How many bytes the digest has: 32 for SHA-256 and HMAC-SHA256, 16 for MD5.
    public let count: Int

    /// Fills `count` bytes through `fill`, which returns whether libcrypto succeeded.
    init(count: Int, algorithm: StaticString, _ fill: (UnsafeMutablePointer<UInt8>) -> Int32) {
        precondition(count <= Self.maxCount)
        self.count = count
        let ok = withUnsafeMutableBytes(of: &storage) { fill($0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        precondition(ok == 1, "libcrypto failed to compute \(algorithm) (out of memory, or a provider configuration without it)")
    }

    /// The digest of `bytes` by a one-shot `function` (`cdigest_sha256`, `cdigest_md5`).
    init(
        _ algorithm: StaticString, count: Int, of bytes: some ContiguousBytes,
        by function: (UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?) -> Int32
    ) {
        self = bytes.withUnsafeBytes { input in
            DigestBytes(count: count, algorithm: algorithm) { function(input.baseAddress, input.count, $0) }
        }
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The byte at `position` (0 ..< ``count``).
    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < count, "DigestBytes index \(position) out of range 0..<\(count)")
        return withUnsafeBytes { $0[position] }
    }

    /// Calls `body` with the digest's bytes (exactly ``count`` of them), valid only during the call.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: storage) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }

    /// The digest in lower-case hexadecimal, two digits a byte.
    public var hex: String {
        String(unsafeUninitializedCapacity: count * 2) { out in
            withUnsafeBytes { bytes in Hex.write(bytes, into: out) }
        }
    }

    /// The digest in lower-case hexadecimal (``hex``).
    public var description: String { hex }

    /// Whether `other` holds the same bytes, compared in time that depends only on the length
    /// (for MACs received from a client, so that timing does not tell how much of one matched).
    public func constantTimeEquals(_ other: some ContiguousBytes) -> Bool {
        withUnsafeBytes { mine in
            other.withUnsafeBytes { theirs in
                mine.count == theirs.count && cdigest_equal(mine.baseAddress, theirs.baseAddress, mine.count) == 1
            }
        }
    }

    /// Whether both hold the same bytes (in ordinary time: see ``constantTimeEquals(_:)``).
    public static func == (lhs: DigestBytes, rhs: DigestBytes) -> Bool {
        lhs.count == rhs.count && lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in a.elementsEqual(b) } }
    }

    /// Hashes the digest's bytes.
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
