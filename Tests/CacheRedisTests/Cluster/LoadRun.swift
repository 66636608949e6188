import CacheRedis
import Foundation
import ImageKernel
import Testing

/// Read-through loads through a cache tier while something happens to the cluster: each load
/// queries the tier, checks a hit's bytes against the origin's, and on a miss takes the origin's
/// bytes and stores them (a dropped store is fine: the shared tier may speed a load up, never
/// stop one). A load fails only if the tier throws where it must not.
struct LoadRun {
    enum Outcome: Sendable { case hit, miss, wrongBytes, failed }

    struct Record: Sendable {
        var at: Duration
        var outcome: Outcome
    }

    var loaders = 8
    var loads = 5000
    var keys = 1000
    var valueSize = 2000
    /// How long the loads are spread over (each loader paces itself), so recovery can be watched.
    var duration: Duration = .seconds(10)
    /// When the disruption starts, from the start of the run.
    var disruptAt: Duration = .seconds(2)

    /// The origin's bytes for key `index`.
    func origin(_ index: Int) -> Data { payload(index, count: valueSize) }

    /// Stores every key, so the run starts warm.
    func warm(_ cache: RedisCache) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for loader in 0..<loaders {
                group.addTask {
                    for index in stride(from: loader, to: keys, by: loaders) {
                        try await cache.store(CacheEntry(data: origin(index)), forKey: "img-\(index)", type: .all)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Runs the loads; `disrupt` runs once, off the loaders, at ``disruptAt``. Returns every load's
    /// record and when the disruption started.
    func run(_ cache: RedisCache, disrupt: @escaping @Sendable () throws -> Void) async throws -> Report {
        let start = ContinuousClock.now
        let perLoader = loads / loaders
        let pace = duration / perLoader
        let disruption = Task.detached { () throws -> Duration in
            try await Task.sleep(until: start + disruptAt)
            let began = ContinuousClock.now - start
            try disrupt()
            return began
        }
        let records = await withTaskGroup(of: [Record].self) { group in
            for loader in 0..<loaders {
                group.addTask {
                    var records: [Record] = []
                    for step in 0..<perLoader {
                        try? await Task.sleep(until: start + pace * step)
                        let index = (loader &* 7919 &+ step &* 104_729) % keys
                        records.append(Record(at: ContinuousClock.now - start, outcome: await load(index, cache)))
                    }
                    return records
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        return Report(records: records, disruptedAt: try await disruption.value)
    }

    private func load(_ index: Int, _ cache: RedisCache) async -> Outcome {
        do {
            if let hit = try await cache.query(key: "img-\(index)", type: .all) {
                return hit.entry.data == origin(index) ? .hit : .wrongBytes
            }
        } catch {
            return .failed
        }
        try? await cache.store(CacheEntry(data: origin(index)), forKey: "img-\(index)", type: .all)
        return .miss
    }
}

/// What a ``LoadRun`` saw: counts, the hit rate before the disruption, and how long after it the
/// hit rate stayed below 90 % of that (the miss window).
struct Report: CustomStringConvertible {
    var records: [LoadRun.Record]
    var disruptedAt: Duration
    static let bucket: Duration = .milliseconds(250)

    func count(_ outcome: LoadRun.Outcome) -> Int { records.filter { $0.outcome == outcome }.count }

    var hitRateBefore: Double { rate(records.filter { $0.at < disruptedAt }) }

    /// From the disruption to the start of the first 250 ms bucket after which every bucket's
    /// hit rate is at least 90 % of the rate before; nil when it never recovered in the run.
    var missWindow: Duration? {
        let after = records.filter { $0.at >= disruptedAt }
        guard let end = after.map(\.at).max() else { return nil }
        let buckets = Int(((end - disruptedAt) / Self.bucket).rounded(.up))
        let rates = (0..<max(buckets, 1)).map { index -> Double in
            let low = disruptedAt + Self.bucket * index
            let inBucket = after.filter { $0.at >= low && $0.at < low + Self.bucket }
            return inBucket.isEmpty ? 1 : rate(inBucket)
        }
        let goal = hitRateBefore * 0.9
        guard let first = rates.indices.first(where: { index in rates[index...].allSatisfy { $0 >= goal } }) else { return nil }
        return Self.bucket * first
    }

    private func rate(_ records: [LoadRun.Record]) -> Double {
        records.isEmpty ? 0 : Double(records.filter { $0.outcome == .hit }.count) / Double(records.count)
    }

    var description: String {
        let window = missWindow.map { "\($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) ms" } ?? "not recovered"
        return "\(records.count) loads: \(count(.hit)) hits, \(count(.miss)) misses, \(count(.failed)) failed, \(count(.wrongBytes)) wrong bytes; "
            + "hit rate before \(String(format: "%.3f", hitRateBefore)); miss window \(window)"
    }
}
