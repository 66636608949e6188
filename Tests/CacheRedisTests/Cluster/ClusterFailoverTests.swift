import CacheRedis
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// 8 loaders, 5,000 loads over 1,000 keys through the cluster tier while the cluster changes
/// under them: no load fails, no hit has wrong bytes, and the hit rate is back to 90 % of what it
/// was within cluster-node-timeout + 3 s. Each prints its miss window.
@Suite(.serialized) struct ClusterFailoverTests {
    static func runLoads(_ name: String, disrupt: @escaping @Sendable (RedisClusterServer) throws -> Void) async throws {
        let cluster = try RedisClusterServer(nodeTimeoutMilliseconds: 1000)
        let cache = try makeCache(on: cluster)
        let run = LoadRun()
        try await run.warm(cache)
        let report = try await run.run(cache) { try disrupt(cluster) }
        print("\(name): \(report)")
        #expect(report.records.count == 5000)
        #expect(report.count(.failed) == 0)
        #expect(report.count(.wrongBytes) == 0)
        #expect(report.hitRateBefore > 0.9, "\(report)")
        let window = try #require(report.missWindow, "the hit rate never came back: \(report)")
        #expect(window <= .milliseconds(cluster.nodeTimeoutMilliseconds) + .seconds(3), "\(report)")
    }

    @Test func aMasterKilledMidRun() async throws {
        try await Self.runLoads("SIGKILL of a master") { cluster in
            let master = try #require(cluster.masters().first)
            let replica = try #require(cluster.replicas(of: master.id).first)
            cluster.kill(port: master.port)
            try cluster.waitUntilHealthy()
            #expect(cluster.masters().contains { $0.port == replica.port }, "the replica took over")
            // Restarted from its nodes.conf, the old master rejoins as the new master's replica.
            try cluster.restart(port: master.port)
            try cluster.waitUntilHealthy()
            #expect(cluster.nodes().first { $0.port == master.port }?.masterID == replica.id)
        }
    }

    @Test func aManualFailoverMidRun() async throws {
        try await Self.runLoads("CLUSTER FAILOVER") { cluster in
            let master = try #require(cluster.masters().first)
            let replica = try #require(cluster.replicas(of: master.id).first)
            try cluster.failover(replicaPort: replica.port)
            #expect(cluster.nodes().first { $0.port == replica.port }?.isMaster == true, "the replica took over")
        }
    }

    @Test func aLiveReshardingMidRun() async throws {
        try await Self.runLoads("resharding 2,000 slots") { cluster in
            let masters = cluster.masters()
            try #require(masters.count == 3)
            let keysBefore = Int(cluster.cli(masters[1].port, ["DBSIZE"])) ?? 0
            try cluster.reshard(slots: 2000, from: masters[0].id, to: masters[1].id)
            #expect((Int(cluster.cli(masters[1].port, ["DBSIZE"])) ?? 0) > keysBefore, "keys moved while the loads ran")
        }
    }
}
