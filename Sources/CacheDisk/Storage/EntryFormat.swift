import Foundation
import ImageKernel

/// The layout of an entry file: a small header, then the stored bytes unchanged.
///
/// ```
/// 0   8  magic            89 49 4B 43 44 0D 0A 1A  ("\x89IKCD\r\n\x1A")
/// 8   4  header length    UInt32 LE, bytes before the payload (room for later fields)
/// 12  4  version          UInt32 LE, 1
/// 16  8  payload length   UInt64 LE; the file must be exactly header + payload long
/// 24  4  ETag length      UInt32 LE, 0xFFFFFFFF = none, then the UTF-8 bytes
/// ..  4  Last-Modified    the same
/// ```
/// The validators live in the header so that one rename publishes bytes and validators together.
/// A file that does not start with the magic (and is not empty) is read as raw bytes without
/// validators, so a directory of plain image files (SDWebImage's) works as a read-only path.
/// A file that starts with the magic but does not parse, or whose length disagrees with the
/// header (truncated by a power loss), is a miss.
enum EntryFormat {
    static let magic: [UInt8] = [0x89, 0x49, 0x4B, 0x43, 0x44, 0x0D, 0x0A, 0x1A]
    static let version: UInt32 = 1
    private static let fixedLength = 24
    private static let absent: UInt32 = .max

    /// Validators longer than this are not kept (no real server sends them; a truncated one
    /// would be wrong).
    static let maxValidatorLength = 64 << 10

    /// The header for `payloadLength` bytes with these validators.
    static func header(payloadLength: Int, validators: CacheValidators?) -> [UInt8] {
        func field(_ text: String?) -> [UInt8]? {
            guard let text, text.utf8.count <= maxValidatorLength else { return nil }
            return Array(text.utf8)
        }
        let etag = field(validators?.etag)
        let lastModified = field(validators?.lastModified)
        let length = fixedLength + 4 + (etag?.count ?? 0) + 4 + (lastModified?.count ?? 0)
        var out = magic
        out.reserveCapacity(length)
        append(UInt32(length), to: &out)
        append(version, to: &out)
        append(UInt64(payloadLength), to: &out)
        for field in [etag, lastModified] {
            if let field {
                append(UInt32(field.count), to: &out)
                out.append(contentsOf: field)
            } else {
                append(absent, to: &out)
            }
        }
        return out
    }

    /// A parsed file: where the payload starts and the validators.
    struct Parsed: Equatable {
        var payloadOffset: Int
        var payloadLength: Int
        var validators: CacheValidators?
    }

    /// Parses a whole file's bytes; nil when the file must be treated as a miss.
    static func parse(_ file: UnsafeRawBufferPointer) -> Parsed? {
        let prefix = min(file.count, magic.count)
        guard prefix > 0 else { return nil }
        let startsWithMagic = (0..<prefix).allSatisfy { file[$0] == magic[$0] }
        guard startsWithMagic else {
            return Parsed(payloadOffset: 0, payloadLength: file.count, validators: nil)
        }
        guard file.count >= fixedLength + 8 else { return nil }
        let headerLength = Int(read32(file, 8))
        guard read32(file, 12) == version, headerLength >= fixedLength + 8, headerLength <= file.count else {
            return nil
        }
        let payloadLength = read64(file, 16)
        guard payloadLength == UInt64(file.count - headerLength) else { return nil }
        var cursor = fixedLength
        var fields: [String?] = []
        for _ in 0..<2 {
            guard cursor + 4 <= headerLength else { return nil }
            let count = read32(file, cursor)
            cursor += 4
            if count == absent {
                fields.append(nil)
                continue
            }
            guard Int(count) <= headerLength - cursor else { return nil }
            let bytes = UnsafeRawBufferPointer(rebasing: file[cursor..<(cursor + Int(count))])
            fields.append(String(decoding: bytes, as: UTF8.self))
            cursor += Int(count)
        }
        let validators = fields[0] == nil && fields[1] == nil
            ? nil : CacheValidators(etag: fields[0], lastModified: fields[1])
        return Parsed(payloadOffset: headerLength, payloadLength: Int(payloadLength), validators: validators)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func read32(_ buffer: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    private static func read64(_ buffer: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}
