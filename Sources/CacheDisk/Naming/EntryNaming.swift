import Digests
import Foundation

/// Turns cache keys into file names: hex digest of every UTF-8 byte of the key, plus the key's
/// sanitised extension (see ``PathExtension``). The digest alone decides where an entry lives, so
/// no key text can name a path outside the directory.
///
/// This runs on every read and store, so it works on the key's UTF-8 bytes and builds each path
/// in one allocation.
struct EntryNaming: Sendable {
    let naming: DiskCache.FileNaming

    /// The longest extension kept, in UTF-8 bytes: a file name must fit in `NAME_MAX` (255).
    var maxExtensionLength: Int { 255 - digestHexLength - 1 }

    var digestHexLength: Int { naming == .sha256 ? 64 : 32 }

    /// `directory/<digest>.<ext>` (or `directory/<digest>`) for `key`.
    func entryPath(forKey key: String, in directory: String) -> EntryPath {
        var key = key
        return key.withUTF8 { bytes in
            let ext = PathExtension.of(bytes, maxLength: maxExtensionLength)
            switch naming {
            case .sha256:
                return SHA256.hash(bytes).withUnsafeBytes { EntryPath(directory: directory, digest: $0, ext: ext) }
            case .md5:
                return MD5.hash(bytes).withUnsafeBytes { EntryPath(directory: directory, digest: $0, ext: ext) }
            }
        }
    }

    /// The file name for `key` (no directory).
    func fileName(forKey key: String) -> String { entryPath(forKey: key, in: "").name }

    /// Lower-case hex of the key's digest.
    func hexDigest(of key: String) -> String { entryPath(forKey: key, in: "").withoutExtension.name }
}

/// Where one entry's file is: a full path, and where its name starts inside it.
struct EntryPath: Sendable, Hashable {
    /// `directory/name`.
    let path: String
    /// Byte offset of the name in ``path``.
    let nameOffset: Int
    /// Bytes of hex digest at the start of the name.
    let digestLength: Int

    /// The file name.
    var name: String { String(decoding: path.utf8.dropFirst(nameOffset), as: UTF8.self) }

    /// Whether the name carries an extension after the digest.
    var hasExtension: Bool { path.utf8.count > nameOffset + digestLength }

    /// The same entry without its extension: SDWebImage named files that way before it kept
    /// extensions, so reads fall back to it.
    var withoutExtension: EntryPath {
        guard hasExtension else { return self }
        let prefix = path.utf8.prefix(nameOffset + digestLength)
        return EntryPath(path: String(decoding: prefix, as: UTF8.self), nameOffset: nameOffset, digestLength: digestLength)
    }

    /// The names to look for, in order: with extension, then without.
    var candidates: [EntryPath] { hasExtension ? [self, withoutExtension] : [self] }

    /// The same name in another directory.
    func moved(to directory: String) -> EntryPath {
        let name = path.utf8.dropFirst(nameOffset)
        var path = directory
        path.reserveCapacity(directory.utf8.count + 1 + name.count)
        path += "/"
        path += String(decoding: name, as: UTF8.self)
        return EntryPath(path: path, nameOffset: directory.utf8.count + 1, digestLength: digestLength)
    }

    private init(path: String, nameOffset: Int, digestLength: Int) {
        self.path = path
        self.nameOffset = nameOffset
        self.digestLength = digestLength
    }

    /// Writes `directory/`, the digest in lower-case hex and `.ext` into one new string.
    /// An empty `directory` gives the bare name.
    init(directory: String, digest: UnsafeRawBufferPointer, ext: String) {
        let digestCount = digest.count
        var directory = directory
        var ext = ext
        let prefixLength = directory.isEmpty ? 0 : directory.utf8.count + 1
        let extLength = ext.isEmpty ? 0 : ext.utf8.count + 1
        let total = prefixLength + digestCount * 2 + extLength
        let built = directory.withUTF8 { dir in
            ext.withUTF8 { extBytes in
                String(unsafeUninitializedCapacity: total) { out in
                    var i = 0
                    if !dir.isEmpty {
                        for byte in dir { out[i] = byte; i += 1 }
                        out[i] = UInt8(ascii: "/"); i += 1
                    }
                    for byte in digest {
                        out[i] = Self.hexDigit(byte >> 4)
                        out[i + 1] = Self.hexDigit(byte & 0x0F)
                        i += 2
                    }
                    if !extBytes.isEmpty {
                        out[i] = UInt8(ascii: "."); i += 1
                        for byte in extBytes { out[i] = byte; i += 1 }
                    }
                    return i
                }
            }
        }
        self.init(path: built, nameOffset: prefixLength, digestLength: digestCount * 2)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
