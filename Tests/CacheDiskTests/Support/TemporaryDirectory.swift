@testable import CacheDisk
import Foundation
import Glibc

/// A fresh directory under the system temporary directory, removed when the value goes away.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL
    var path: String { url.path }

    init(_ label: String = "cachedisk") {
        let base = FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func child(_ name: String) -> URL { url.appendingPathComponent(name, isDirectory: true) }
}

/// What is on disk, read without the cache.
enum Disk {
    /// Names of the entry files (not starting with a dot) in `directory`.
    static func entryNames(_ directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Names of leftover temporary files.
    static func temporaryNames(_ directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(EntryWriter.temporaryPrefix) }
    }

    /// Sum of the sizes of the entry files.
    static func totalSize(_ directory: URL) -> Int {
        entryNames(directory).reduce(0) { total, name in
            var st = stat()
            return stat(directory.appendingPathComponent(name).path, &st) == 0 ? total + Int(st.st_size) : total
        }
    }

    /// Sets a file's access and modification dates to `secondsAgo` seconds in the past.
    static func backdate(_ path: String, secondsAgo: Double, accessSecondsAgo: Double? = nil) {
        let now = Date().timeIntervalSince1970
        func ts(_ t: Double) -> timespec {
            timespec(tv_sec: Int(t.rounded(.down)), tv_nsec: Int((t - t.rounded(.down)) * 1e9))
        }
        var times = [ts(now - (accessSecondsAgo ?? secondsAgo)), ts(now - secondsAgo)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}

/// Deterministic bytes of a given size.
func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7) })
}
