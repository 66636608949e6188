// CacheDisk against bare system calls doing the same file work, in the same run.
//   read:  10,000 cached entries of ~20 KB, DiskCache hits vs open/fstat/read/close of the same files
//   store: DiskCache.storeData vs open/write/close/rename of the same bytes
//   limit: one store when the cache holds N entries and sits at its size limit, N = 1k, 10k, 100k
import BenchSupport
import CacheDisk
import Foundation

let root = FileManager.default.temporaryDirectory.appendingPathComponent("bench-disk-\(getpid())")
try? FileManager.default.removeItem(at: root)
defer { try? FileManager.default.removeItem(at: root) }

func payload(_ size: Int, seed: Int) -> Data {
    var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
    return Data((0..<size).map { _ in
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    })
}

/// `BENCH_DISK_ONLY=read|store|limit` runs one section.
let only = ProcessInfo.processInfo.environment["BENCH_DISK_ONLY"]
func runs(_ section: String) -> Bool { only == nil || only == section }

print("bench-disk (ratio = baseline time / CacheDisk time; > 1 means CacheDisk is faster)")

// MARK: Reads
if runs("read") {
    let directory = root.appendingPathComponent("read")
    let cache = DiskCache(configuration: .init(directory: directory))
    let count = 10_000
    let keys = (0..<count).map { "https://images.example.com/photos/\($0).jpg" }
    let blob = payload(40_000, seed: 1)
    for (i, key) in keys.enumerated() {
        let size = 16_000 + (i * 7919) % 8_000  // 16–24 KB, ~20 KB on average
        try cache.storeData(blob.prefix(size), validators: .init(etag: "\"\(i)\""), forKey: key)
    }
    cache.waitUntilIdle()
    let paths = keys.map { cache.path(forKey: $0) }
    var sink = 0
    // CPU time (user + system) per round, rounds alternating: the machine is shared, and CPU time
    // is what the cache adds; wall time is printed too.
    var ours: [Double] = [], raw: [Double] = [], oursWall: [Double] = [], rawWall: [Double] = []
    for round in 0..<9 {
        let (c1, w1) = Measure.cpuAndWall { for key in keys { sink &+= cache.data(forKey: key)?.count ?? 0 } }
        let (c2, w2) = Measure.cpuAndWall { for path in paths { sink &+= RawFiles.read(path) } }
        if round >= 2 { ours.append(c1); raw.append(c2); oursWall.append(w1); rawWall.append(w2) }
    }
    report("read 10,000 entries of ~20 KB (hits), CPU", ours: Measure.median(ours), baseline: Measure.median(raw), goal: "goal >= 0.8x")
    report("read 10,000 entries of ~20 KB (hits), wall", ours: Measure.median(oursWall), baseline: Measure.median(rawWall), goal: "goal >= 0.8x")
    precondition(sink > 0)
}

// MARK: Stores
if runs("store") {
    let cacheDirectory = root.appendingPathComponent("store-cache")
    let rawDirectory = root.appendingPathComponent("store-raw")
    try FileManager.default.createDirectory(at: rawDirectory, withIntermediateDirectories: true)
    let cache = DiskCache(configuration: .init(directory: cacheDirectory))
    cache.waitUntilIdle()
    let count = 2_000
    let keys = (0..<count).map { "https://images.example.com/photos/\($0).jpg" }
    let names = keys.map { URL(fileURLWithPath: cache.path(forKey: $0)).lastPathComponent }
    let data = payload(20_000, seed: 2)
    var ours: [Double] = [], raw: [Double] = [], oursWall: [Double] = [], rawWall: [Double] = []
    // Interleaved so both see the same machine state; each round replaces the previous round's files.
    for round in 0..<9 {
        let (c1, w1) = Measure.cpuAndWall { for key in keys { try! cache.storeData(data, forKey: key) } }
        let (c2, w2) = Measure.cpuAndWall {
            for name in names { RawFiles.writeAndRename(data, directory: rawDirectory.path, name: name) }
        }
        if round >= 2 { ours.append(c1); raw.append(c2); oursWall.append(w1); rawWall.append(w2) }
    }
    report("store 2,000 entries of 20 KB, CPU", ours: Measure.median(ours), baseline: Measure.median(raw), goal: "goal >= 0.8x")
    report("store 2,000 entries of 20 KB, wall", ours: Measure.median(oursWall), baseline: Measure.median(rawWall), goal: "goal >= 0.8x")

    // New entries (the cold path of a service): each round stores 2,000 keys never seen before.
    // CacheDisk writes them in place; the baselines are a temporary file and a rename (what a
    // replacement costs, and what CacheDisk did for every store before) and a plain create.
    var fresh: [Double] = [], renamed: [Double] = [], created: [Double] = []
    for round in 0..<7 {
        let roundKeys = keys.map { $0 + "?new=\(round)" }
        let roundNames = roundKeys.map { URL(fileURLWithPath: cache.path(forKey: $0)).lastPathComponent }
        let renameDirectory = root.appendingPathComponent("new-rename-\(round)").path
        let createDirectory = root.appendingPathComponent("new-create-\(round)").path
        for directory in [renameDirectory, createDirectory] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let c1 = Measure.cpuAndWall { for key in roundKeys { try! cache.storeData(data, forKey: key) } }.0
        let c2 = Measure.cpuAndWall { for name in roundNames { RawFiles.writeAndRename(data, directory: renameDirectory, name: name) } }.0
        let c3 = Measure.cpuAndWall { for name in roundNames { RawFiles.writeNew(data, directory: createDirectory, name: name) } }.0
        if round >= 1 { fresh.append(c1); renamed.append(c2); created.append(c3) }
    }
    report("store 2,000 new entries of 20 KB vs temporary + rename, CPU", ours: Measure.median(fresh), baseline: Measure.median(renamed), goal: "goal >= 1x")
    report("store 2,000 new entries of 20 KB vs plain create, CPU", ours: Measure.median(fresh), baseline: Measure.median(created), goal: "goal >= 0.8x")
}

// MARK: One store at the size limit, by entry count
if runs("limit") {
    let entrySize = 1_000
    let data = payload(entrySize, seed: 3)
    var medians: [Int: Double] = [:]
    for count in [1_000, 10_000, 100_000] {
        let directory = root.appendingPathComponent("limit-\(count)")
        // Fill without limits, then reopen at exactly the limit (the reopen builds the index once).
        let filler = DiskCache(configuration: .init(directory: directory, maxSize: 0))
        for i in 0..<count { try filler.storeData(data, forKey: "k\(i)") }
        filler.waitUntilIdle()
        let fileSize = filler.totalSize() / count
        let clock = ContinuousClock()
        let indexStart = clock.now
        let cache = DiskCache(configuration: .init(directory: directory, maxSize: fileSize * count))
        cache.waitUntilIdle()
        let indexBuild = Measure.seconds(clock.now - indexStart)
        // Replacing entries keeps the cache at its limit: every store checks it, none trims.
        var samples: [Double] = []
        for round in 0..<2_000 {
            let key = "k\((round * 7_919) % count)"
            let start = clock.now
            try cache.storeData(data, forKey: key)
            samples.append(Measure.seconds(clock.now - start))
        }
        samples.sort()
        medians[count] = Measure.median(samples)
        let p99 = samples[samples.count * 99 / 100]
        // One store of a new key crosses the limit: it returns at once; the trim to half runs behind it.
        let crossStart = clock.now
        try cache.storeData(data, forKey: "new")
        let cross = Measure.seconds(clock.now - crossStart)
        cache.waitUntilIdle()
        let trim = Measure.seconds(clock.now - crossStart)
        print(String(
            format: "  %6d entries at the limit: store median %.1f us, p99 %.1f us; crossing store %.1f us, background trim to %d entries %.3f s; index build on open %.3f s",
            count, medians[count]! * 1e6, p99 * 1e6, cross * 1e6, cache.count(), trim, indexBuild))
        try? FileManager.default.removeItem(at: directory)
    }
    report("store at limit: 100k entries vs 1k entries", ours: medians[100_000]!, baseline: medians[1_000]!, goal: "goal ~1.0x (flat)")
}
