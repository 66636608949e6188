import CacheDisk
import Foundation
import Testing
import cachedisk_stress

/// Two processes store into and trim one directory at once while this process reads from it.
@Suite struct MultiProcessTests {
    @Test func twoProcessesStoringAndTrimmingOneDirectory() async throws {
        let directory = TemporaryDirectory("twoproc")
        let limit = 3 << 20
        let count = 600
        let children = try ["a", "b"].map { prefix in
            try StressChild(["churn", directory.path, prefix, String(count), String(limit), "2", "7"])
        }
        // Read while they work: a miss is fine, a hit must be exact.
        let reader = DiskCache(configuration: .init(directory: directory.url, maxSize: limit))
        var readerHits = 0
        for round in 0..<3000 {
            let prefix = round % 2 == 0 ? "a" : "b"
            let key = (round / 2) % count
            if let entry = reader.entry(forKey: "\(prefix)-\(key)") {
                readerHits += 1
                #expect(entry.data.flatMap { StressPayload.version(of: $0, seed: 7, key: key) } == 0)
            }
            if children.allSatisfy({ !$0.process.isRunning }) { break }
        }
        for child in children {
            let (output, status, _) = child.finish()
            #expect(status == 0 && output.hasPrefix("ok"), "child said: \(output)")
        }
        // The limit held: stores that crossed it trimmed, across both processes.
        #expect(Disk.totalSize(directory.url) <= limit)
        #expect(!Disk.entryNames(directory.url).isEmpty)
        let after = DiskCache(configuration: .init(directory: directory.url, maxSize: limit))
        var hits = 0
        for prefix in ["a", "b"] {
            for key in 0..<count {
                guard let entry = after.entry(forKey: "\(prefix)-\(key)") else { continue }
                hits += 1
                #expect(entry.data.flatMap { StressPayload.version(of: $0, seed: 7, key: key) } == 0)
            }
        }
        #expect(hits == Disk.entryNames(directory.url).count)
        #expect(after.totalSize() == Disk.totalSize(directory.url))
        _ = readerHits
    }
}
