@testable import CacheRedis
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// What a real cluster says only by chance, said on cue by scripted nodes: each answer is
/// handled as the cluster specification asks, and nothing the cluster cannot answer becomes more
/// than a miss (or, for a store, a typed error).
@Suite struct FakeNodeTests {
    typealias Node = FakeRedisNode

    /// A `CLUSTER SHARDS` reply giving every slot to the node on `port`.
    static func everySlot(to port: Int, replicas: [Int] = []) -> Node.Action {
        .reply(Node.shardsReply([.init(slots: [0...16383], masterPort: port, replicaPorts: replicas)]))
    }

    static func slot(_ key: String) -> Int { HashSlot.of(Data(redisKey(key).utf8)) }

    /// Waits (bounded: a hang guard, not a timing assertion) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        return condition()
    }

    @Test func movedRetriesAtTheNewNodeAndTheMapFollowsAChangedSlotMap() async throws {
        let b = try Node()
        b.set(redisKey("k"), storedValue(payload(1)))
        let ownPort = Locked(0)
        let maps = Locked(0)
        let a = try Node { command, _ in
            switch command.first?.uppercased() {
            case "CLUSTER":
                // The slot map changes between two calls: first everything here, then everything on b.
                let calls = maps.withLock { $0 += 1; return $0 }
                return Self.everySlot(to: calls == 1 ? ownPort.value : b.port)
            case "GET": return .reply(.error("MOVED \(HashSlot.of(Data(command[1].utf8))) 127.0.0.1:\(b.port)"))
            default: return nil
            }
        }
        ownPort.withLock { $0 = a.port }
        let cache = try makeCache(seeds: [a.port])
        #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(1))
        #expect(a.count("GET") == 1 && b.count("GET") == 1)
        #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(1))
        #expect(a.count("GET") == 1 && b.count("GET") == 2, "a MOVED slot goes straight to its new node")
        #expect(try await Self.eventually { a.count("CLUSTER") >= 2 }, "MOVED refreshes the map")
        // The refreshed map sends every other slot to b too.
        #expect(try await cache.query(key: "other", type: .all) == nil)
        #expect(a.count("GET") == 1 && b.count("GET") == 3)
    }

    @Test func askSendsAskingAndTheCommandOnceAndKeepsTheMap() async throws {
        let lastCommand = Locked([Int: String]())
        let b = try Node { command, connection in
            let previous = lastCommand.withLock { $0.updateValue(command[0].uppercased(), forKey: connection) }
            if command[0].uppercased() == "GET", previous != "ASKING" { return .reply(.error("ERR GET without ASKING")) }
            return nil
        }
        b.set(redisKey("k"), storedValue(payload(2)))
        let ownPort = Locked(0)
        let a = try Node { command, _ in
            switch command.first?.uppercased() {
            case "CLUSTER": return Self.everySlot(to: ownPort.value)
            case "GET": return .reply(.error("ASK \(Self.slot("k")) 127.0.0.1:\(b.port)"))
            default: return nil
            }
        }
        ownPort.withLock { $0 = a.port }
        let cache = try makeCache(seeds: [a.port])
        for _ in 0..<2 { #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(2)) }
        #expect(a.count("GET") == 2, "ASK leaves the slot with its owner")
        #expect(b.count("ASKING") == 2 && b.count("GET") == 2)
        #expect(a.count("CLUSTER") == 1, "ASK does not refresh the map")
    }

    @Test func tryAgainIsRetried() async throws {
        let answered = Locked(0)
        let ownPort = Locked(0)
        let a = try Node { command, _ in
            switch command.first?.uppercased() {
            case "CLUSTER": return Self.everySlot(to: ownPort.value)
            case "GET": return answered.withLock { $0 += 1; return $0 } <= 2 ? .reply(.error("TRYAGAIN Multiple keys request during rehashing of slot")) : nil
            default: return nil
            }
        }
        ownPort.withLock { $0 = a.port }
        a.set(redisKey("k"), storedValue(payload(3)))
        let cache = try makeCache(seeds: [a.port])
        #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(3))
        #expect(a.count("GET") == 3)
    }

    @Test func clusterDownIsAMissAndATypedStoreErrorAndRefreshesTheMap() async throws {
        let ownPort = Locked(0)
        let a = try Node { command, _ in
            switch command.first?.uppercased() {
            case "CLUSTER": return Self.everySlot(to: ownPort.value)
            case "GET", "SET", "EXISTS": return .reply(.error("CLUSTERDOWN The cluster is down"))
            default: return nil
            }
        }
        ownPort.withLock { $0 = a.port }
        let cache = try makeCache(seeds: [a.port])
        #expect(try await cache.query(key: "k", type: .all) == nil)
        #expect(await cache.contains(key: "k", type: .all) == .none)
        let error = await storeError(cache, CacheEntry(data: payload(1)))
        #expect(error.map { $0.code == .ioError && $0.plugin == "CacheRedis" && $0.message.contains("CLUSTERDOWN") } == true, "\(String(describing: error))")
        #expect(try await Self.eventually { a.count("CLUSTER") >= 2 })
    }

    @Test func aStalledNodeIsAMissWithinTheTimeoutAndAStalledSeedIsSkipped() async throws {
        let stalled = try Node { _, _ in .stall }
        let goodPort = Locked(0)
        let good = try Node { command, _ in
            switch command.first?.uppercased() {
            case "CLUSTER": return Self.everySlot(to: goodPort.value)
            case "GET" where command[1] == redisKey("stalls"): return .stall
            default: return nil
            }
        }
        goodPort.withLock { $0 = good.port }
        good.set(redisKey("k"), storedValue(payload(4)))
        let cache = try makeCache(seeds: [stalled.port, good.port])
        let start = ContinuousClock.now
        #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(4), "the second seed answers for the stalled first")
        #expect(try await cache.query(key: "stalls", type: .all) == nil)
        #expect(ContinuousClock.now - start < .seconds(60), "a hang guard: each wait is bounded")
        #expect(stalled.count("CLUSTER") == 1)
        do {
            try await cache.store(CacheEntry(data: payload(1)), forKey: "stalls-too", type: .all)
        } catch {
            Issue.record("a store on the good node failed: \(error)")
        }
    }

    @Test func clusterSlotsStandsInForClusterShards() async throws {
        let ownPort = Locked(0)
        let a = try Node { command, _ in
            guard command.first?.uppercased() == "CLUSTER" else { return nil }
            if command[1].uppercased() == "SHARDS" { return .reply(.error("ERR unknown subcommand 'SHARDS'")) }
            return .reply(Node.slotsReply([.init(slots: [0...8191, 8192...16383], masterPort: ownPort.value)]))
        }
        ownPort.withLock { $0 = a.port }
        a.set(redisKey("k"), storedValue(payload(5)))
        let cache = try makeCache(seeds: [a.port])
        #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(5))
        #expect(a.commands.filter { $0.first == "CLUSTER" }.map { $0[1] } == ["SHARDS", "SLOTS"])
    }

    @Test func readOnlyOnAWriteRefreshesTheMapAndRetriesAtTheNewMaster() async throws {
        let b = try Node()
        let ownPort = Locked(0)
        let maps = Locked(0)
        let a = try Node { command, _ in
            switch command.first?.uppercased() {
            case "CLUSTER": return Self.everySlot(to: maps.withLock { $0 += 1; return $0 } == 1 ? ownPort.value : b.port)
            case "SET": return .reply(.error("READONLY You can't write against a read only replica."))
            default: return nil
            }
        }
        ownPort.withLock { $0 = a.port }
        let cache = try makeCache(seeds: [a.port])
        try await cache.store(CacheEntry(data: payload(6)), forKey: "k", type: .all)
        #expect(b.value(redisKey("k")) == storedValue(payload(6)))
        #expect(a.count("SET") == 1)
    }

    @Test func readsFromReplicasFallBackToTheMasterWhileTheReplicaLoads() async throws {
        let loading = Locked(true)
        let replica = try Node { command, _ in
            guard command.first?.uppercased() == "GET" else { return nil }
            return loading.withLock { flag in defer { flag = false }; return flag } ? .reply(.error("LOADING Redis is loading the dataset in memory")) : nil
        }
        let masterPort = Locked(0)
        let master = try Node { command, _ in
            command.first?.uppercased() == "CLUSTER" ? Self.everySlot(to: masterPort.value, replicas: [replica.port]) : nil
        }
        masterPort.withLock { $0 = master.port }
        for node in [master, replica] { node.set(redisKey("k"), storedValue(payload(7))) }
        let cache = try makeCache(seeds: [master.port]) { $0.readsFromReplicas = true }
        #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(7))
        #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(7))
        #expect(replica.count("READONLY") >= 1 && replica.count("GET") == 2)
        #expect(master.count("GET") == 1, "only the read the loading replica could not serve reached the master")
    }

    @Test func endlessRedirectionsAreBoundedAndTyped() async throws {
        // a sends every key to b, b sends it back to a.
        let ports = Locked((a: 0, b: 0))
        func node(redirectingTo other: @escaping @Sendable () -> Int) throws -> Node {
            try Node { command, _ in
                switch command.first?.uppercased() {
                case "CLUSTER": return Self.everySlot(to: ports.value.a)
                case "GET", "SET": return .reply(.error("MOVED \(HashSlot.of(Data(command[1].utf8))) 127.0.0.1:\(other())"))
                default: return nil
                }
            }
        }
        let a = try node { ports.value.b }
        let b = try node { ports.value.a }
        ports.withLock { $0 = (a.port, b.port) }
        let cache = try makeCache(seeds: [a.port])
        #expect(try await cache.query(key: "k", type: .all) == nil)
        let error = await storeError(cache, CacheEntry(data: payload(1)))
        #expect(error.map { $0.code == .redirect } == true, "\(String(describing: error))")
        #expect(a.count("GET") + b.count("GET") == ClusterRouter.maxAttempts)
    }

    @Test func aLostConnectionIsAMissAndTheNextCommandReconnects() async throws {
        let closed = Locked(false)
        let ownPort = Locked(0)
        let a = try Node { command, _ in
            switch command.first?.uppercased() {
            case "CLUSTER": return Self.everySlot(to: ownPort.value)
            case "GET": return closed.withLock { flag in defer { flag = true }; return flag } ? nil : .close
            default: return nil
            }
        }
        ownPort.withLock { $0 = a.port }
        a.set(redisKey("k"), storedValue(payload(8)))
        let cache = try makeCache(seeds: [a.port])
        #expect(try await cache.query(key: "k", type: .all) == nil)
        #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(8))
    }

    @Test func noReachableSeedIsAMissAndCannotConnect() async throws {
        let port = try SilentListener().port  // closed again at once: nothing listens there
        let cache = try makeCache(seeds: [port])
        #expect(try await cache.query(key: "k", type: .all) == nil)
        let error = await storeError(cache, CacheEntry(data: payload(1)))
        #expect(error.map { $0.code == .cannotConnect } == true, "\(String(describing: error))")
    }
}
