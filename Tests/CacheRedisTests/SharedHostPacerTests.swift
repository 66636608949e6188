import CacheRedis
import Foundation
import ImageKernelTestSupport
import Testing

/// The shared pacer's ceiling, against a real redis-server: after a refusal the fleet climbs back
/// to just under the rate it was refused at and stays there while the hold lasts.
@Suite(.enabled(if: RedisServer.isAvailable, "needs redis-server"))
struct SharedHostPacerTests {
    @Test func aRefusalSetsACeilingThatSuccessesReachButDoNotPassDuringTheHold() async throws {
        let redis = try RedisServer()
        defer { redis.stop() }
        // A hold longer than the climb can take on a loaded machine: probing past the ceiling
        // after the hold is not what this test looks at.
        let pacer = SharedHostPacer(configuration: try .init(url: redis.url), hold: .seconds(120))
        let host = "http://pacer-\(UUID().uuidString.prefix(8)).test:80"
        for _ in 0..<50 {
            let permit = try await pacer.acquire(host: host)
            #expect(await pacer.report(permit, .served) == nil, "a host is unpaced until it refuses")
        }
        let refused = try await pacer.acquire(host: host)
        let cut = try #require(await pacer.report(refused, .refused(retryAfter: .seconds(1))))
        // The cut is 85 % of the ceiling; successes raise the rate to the ceiling and no further.
        let ceiling = cut / 0.85
        var rates: [Double] = []
        for _ in 0..<Int(ceiling * 1.5) {
            let permit = try await pacer.acquire(host: host)
            rates.append(try #require(await pacer.report(permit, .served)))
        }
        #expect(rates.allSatisfy { $0 <= ceiling * 1.0001 }, "the rate passed the ceiling \(ceiling): \(rates.max() ?? 0)")
        #expect(abs((rates.last ?? 0) - ceiling) < ceiling * 0.0001, "the rate climbs back to the ceiling \(ceiling): \(rates.last ?? 0)")
    }
}
