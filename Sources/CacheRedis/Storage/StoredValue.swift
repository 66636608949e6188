import Foundation
import ImageKernel

/// The layout of one Redis value: validators in front of the original bytes, so one `SET`
/// publishes both and one `GET` reads both.
///
/// ```
/// 0  4  magic          "IKR1"
/// 4  4  ETag length    UInt32 LE, 0xFFFFFFFF = none, then its UTF-8 bytes
/// .. 4  Last-Modified  the same
/// .. n  the original bytes, unchanged, to the end
/// ```
/// A value that does not parse (written by something else) is a miss.
enum StoredValue {
    private static let magic = Data("IKR1".utf8)
    private static let absent = UInt32.max

    static func encode(data: Data, validators: CacheValidators?) -> Data {
        var out = Data(capacity: data.count + 64)
        out.append(magic)
        for text in [validators?.etag, validators?.lastModified] {
            let bytes = text.map { Data($0.utf8) }
            appendLength(bytes.map { UInt32(clamping: $0.count) } ?? absent, to: &out)
            if let bytes { out.append(bytes) }
        }
        out.append(data)
        return out
    }

    static func decode(_ value: Data) -> CacheEntry? {
        guard value.starts(with: magic) else { return nil }
        var cursor = value.startIndex + magic.count
        var texts: [String?] = []
        for _ in 0..<2 {
            guard let length = readLength(value, at: cursor) else { return nil }
            cursor += 4
            if length == absent {
                texts.append(nil)
                continue
            }
            guard value.endIndex - cursor >= Int(length) else { return nil }
            texts.append(String(decoding: value[cursor..<cursor + Int(length)], as: UTF8.self))
            cursor += Int(length)
        }
        let validators = texts.allSatisfy({ $0 == nil }) ? nil : CacheValidators(etag: texts[0], lastModified: texts[1])
        return CacheEntry(data: tail(of: value, from: cursor), validators: validators)
    }

    /// `value[start...]` as a Data of its own. A large tail shares `value`'s buffer (for a hit, the
    /// buffer its bytes were received into: 50 KB not copied), kept alive by the deallocator; a
    /// small one is copied.
    private static func tail(of value: Data, from start: Data.Index) -> Data {
        let count = value.endIndex - start
        guard count >= 4096 else { return Data(value[start...]) }
        // A Data this large is stored out of line, so its bytes do not move while `value` lives.
        let base = value.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress!) }
        let offset = start - value.startIndex
        return Data(bytesNoCopy: base + offset, count: count, deallocator: .custom { _, _ in withExtendedLifetime(value) {} })
    }

    private static func appendLength(_ length: UInt32, to out: inout Data) {
        withUnsafeBytes(of: length.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func readLength(_ value: Data, at index: Data.Index) -> UInt32? {
        guard value.endIndex - index >= 4 else { return nil }
        return value[index..<index + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}
