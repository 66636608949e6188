import Foundation
import ImageKernelTestSupport
import Testing

/// Four image-proxy processes on one Redis Cluster (the process's shared one), behind nginx
/// round-robin, loading from an origin that counts requests: one origin request and one render
/// per result in the whole fleet, results rendered by one instance served by the others, a
/// rendering instance killed and taken over, and each instance alone when the tier is down.
@Suite("image-proxy fleet", .serialized, .enabled(if: RedisClusterServer.isAvailable && NginxServer.isAvailable))
struct FleetTests {
    @Test func sixtyFourRequestsForOneNewResultCostOneOriginRequestAndOneRenderInTheFleet() async throws {
        let (origin, fleet) = try Self.fleet(serving: "one.jpg")
        defer { Self.stop(origin, fleet) }
        // The origin holds the source 1 s, so all 64 requests arrive while it renders.
        let path = Paths.plain(origin.url("/files/one.jpg?delay=1000"), spec: "resize:fill:64:48")
        let statuses = try await Self.get(64, concurrently: 64) { _ in fleet.url(path) }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(origin.requestCount(path: "/files/one.jpg") == 1)
        let renders = await fleet.renders()
        #expect(renders.compactMap { $0 }.reduce(0, +) == 1, "renders per instance: \(renders)")
    }

    @Test func resultsRenderedByOneInstanceAreServedByTheOthersWithoutRendering() async throws {
        let (origin, fleet) = try Self.fleet(serving: "many.jpg")
        defer { Self.stop(origin, fleet) }
        let source = origin.url("/files/many.jpg")
        let paths = (0..<1000).map { Paths.plain(source, spec: "resize:fit:\(10 + $0):\(10 + $0)") }
        let first = try await Self.get(paths.count, concurrently: 16) { fleet.instances[$0 % 4].url(paths[$0]) }
        #expect(first.allSatisfy { $0 == 200 })
        let rendered = await fleet.renders().compactMap { $0 }.reduce(0, +)
        #expect(rendered == 1000)
        try await Task.sleep(for: .seconds(1))  // each result is in the shared tier within a second of its answer
        let second = try await Self.get(paths.count, concurrently: 16) { fleet.instances[($0 + 1) % 4].url(paths[$0]) }
        #expect(second.allSatisfy { $0 == 200 })
        let renders = await fleet.renders()
        #expect(renders.compactMap { $0 }.reduce(0, +) - rendered == 0, "renders per instance: \(renders)")
    }

    @Test func aRenderingInstanceKilledIsTakenOverAndEveryRequestIsAnswered() async throws {
        let cluster = try RedisClusterServer.shared()
        let (origin, fleet) = try Self.fleet(serving: "held.jpg", sharedCache: cluster.url)
        defer { Self.stop(origin, fleet) }
        // The source is held at the origin until the gate opens: the lease holder is still
        // rendering (fetching) when it is killed.
        let path = Paths.plain(origin.url("/gate/fleet-kill/held.jpg"), spec: "resize:fill:40:30")
        let clock = ContinuousClock()
        let answers = Task { try await Self.get(64, concurrently: 64) { _ in fleet.url(path) } }
        let holder = try await Self.leaseHolder(cluster: cluster, fleet: fleet)
        holder.killAbruptly()
        let killed = clock.now
        origin.openGate("fleet-kill")
        let statuses = try await answers.value
        let takeover = clock.now - killed
        #expect(statuses == Array(repeating: 200, count: 64), "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
        // The lease (5 s) lapses, a waiter takes it and renders: well within the 30 s bound.
        #expect(takeover < .seconds(30), "answered \(takeover) after the kill")
        print("fleet takeover: every request answered \(takeover) after the lease holder's SIGKILL")
        let renders = await fleet.renders()
        #expect(renders.compactMap { $0 }.reduce(0, +) == 1, "renders per surviving instance: \(renders)")
    }

    @Test func withTheSharedTierUnreachableEveryInstanceRendersAloneAndAnswers() async throws {
        let refused = try RefusingPort()
        let (origin, fleet) = try Self.fleet(serving: "alone.jpg", sharedCache: "redis+cluster://127.0.0.1:\(refused.port)")
        defer { Self.stop(origin, fleet) }
        let path = Paths.plain(origin.url("/files/alone.jpg?delay=500"), spec: "resize:fill:50:50")
        let clock = ContinuousClock()
        let start = clock.now
        let statuses = try await Self.get(64, concurrently: 64) { _ in fleet.url(path) }
        let elapsed = clock.now - start
        #expect(statuses == Array(repeating: 200, count: 64), "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
        #expect(elapsed < .seconds(30))
        // Each instance renders the result once on its own (coalescing inside the process stays).
        let renders = await fleet.renders()
        #expect(renders.allSatisfy { ($0 ?? 0) <= 1 } && renders.compactMap { $0 }.reduce(0, +) >= 1, "renders per instance: \(renders)")
    }

    /// An origin serving a small JPEG as `name`, and four instances on `sharedCache` (default:
    /// the process's cluster) loading from it.
    static func fleet(serving name: String, sharedCache: String? = nil) throws -> (HTTPTestServer, Fleet) {
        let origin = try HTTPTestServer()
        origin.addFile(name, data: try Origin.example("photo.jpg"))
        do {
            return (origin, try Fleet(count: 4, sharedCache: try sharedCache ?? RedisClusterServer.shared().url, origin: origin))
        } catch {
            origin.stop()
            throw error
        }
    }

    static func stop(_ origin: HTTPTestServer, _ fleet: Fleet) {
        fleet.stop()
        origin.stop()
    }

    /// The statuses of `count` GETs of `url(i)`, at most `width` at a time.
    static func get(_ count: Int, concurrently width: Int, _ url: @escaping @Sendable (Int) -> URL) async throws -> [Int] {
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            var statuses = Array(repeating: 0, count: count)
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask { (index, (try? await HTTP.get(url(index)).status) ?? -1) }
            }
            while next < min(width, count) { add() }
            while let (index, status) = try await group.next() {
                statuses[index] = status
                if next < count { add() }
            }
            return statuses
        }
    }

    /// The instance whose process holds a result's lease: the lease's owner token names its pid
    /// (`host:pid:random`); found by scanning every master for lease keys.
    static func leaseHolder(cluster: RedisClusterServer, fleet: Fleet) async throws -> ProxyProcess {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            for master in cluster.masters() {
                let keys = cluster.cli(master.port, ["--scan", "--pattern", "imagekernel:lease:*"]).split(separator: "\n")
                for key in keys {
                    let owner = cluster.cli(master.port, ["GET", String(key)]).split(separator: ":")
                    if owner.count == 3, let pid = Int32(owner[1]), let instance = fleet.instances.first(where: { $0.pid == pid }) { return instance }
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("no instance took the result's lease")
    }
}
