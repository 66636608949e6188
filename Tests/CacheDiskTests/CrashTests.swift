import CacheDisk
import Foundation
import Testing
import cachedisk_stress

/// A child process storing 1000 entries from several threads is SIGKILLed at random moments;
/// afterwards every entry is either complete and byte-identical (with its own validators) or a miss.
@Suite struct CrashTests {
    @Test func killedWriterLeavesOnlyCompleteEntriesOrMisses() throws {
        var generator = SystemRandomNumberGenerator()
        var totalHits = 0
        for trial in 0..<20 {
            let directory = TemporaryDirectory("crash")
            let seed = UInt64(trial) &+ 0xC0FFEE
            let child = try StressChild(["kill-writer", directory.path, String(seed), "1000", "4"])
            #expect(child.readLine() == "ready")
            Thread.sleep(forTimeInterval: Double.random(in: 0.01...0.35, using: &generator))
            child.kill()
            let (output, _, signalled) = child.finish()
            #expect(signalled, "the writer stopped on its own: \(output)")

            let cache = DiskCache(configuration: .init(directory: directory.url, maxSize: 0))
            var hits = 0
            for key in 0..<1000 {
                guard let entry = cache.entry(forKey: "key-\(key)") else { continue }
                let data = try #require(entry.data)
                let version = StressPayload.version(of: data, seed: seed, key: key)
                #expect(version != nil, "trial \(trial): key-\(key) holds \(data.count) bytes that are no complete version")
                if let version { #expect(entry.validators?.etag == StressPayload.etag(version: version)) }
                hits += 1
            }
            #expect(cache.count() == Disk.entryNames(directory.url).count)
            totalHits += hits
        }
        #expect(totalHits > 0, "no trial wrote anything before it was killed")
    }
}
