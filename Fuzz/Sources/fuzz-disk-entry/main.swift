import CacheDisk
import Foundation
import FuzzSupport
import ImageKernel

/// The disk cache's entry reader on a corrupted entry file: the input is written where the
/// entry for one key lives, then read back through the public API. A file that is not a valid
/// entry must be a miss or raw bytes, never a crash; a hit must carry at most the file's bytes.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ik-fuzz-disk-\(getpid())")
let cache = DiskCache(configuration: .init(directory: directory))
let key = "https://example.com/fuzzed.png"

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = fuzzInput(start, count)
    let path = cache.path(forKey: key)
    try? FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    guard FileManager.default.createFile(atPath: path, contents: data) else { return 0 }
    if let entry = cache.entry(forKey: key) {
        precondition((entry.data?.count ?? 0) <= data.count, "an entry larger than its file")
        _ = entry.validators?.etag?.utf8.count
        _ = entry.validators?.lastModified?.utf8.count
    }
    _ = cache.data(forKey: key)
    _ = cache.containsData(forKey: key)
    return 0
}

runFuzzer { fuzz($0, $1) }
