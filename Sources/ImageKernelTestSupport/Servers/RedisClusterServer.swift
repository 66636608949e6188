import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real Redis Cluster on 127.0.0.1: three masters and three replicas (`redis-server
/// --cluster-enabled yes`, joined by `redis-cli --cluster create … --cluster-replicas 1`), each
/// without persistence in its own temporary directory, with a short `cluster-node-timeout` (1 s
/// by default) so a killed master is replaced within seconds.
///
/// It waits until every node reports `cluster_state:ok` and agrees on the slot map. A node can be
/// killed (SIGKILL) and restarted with its `nodes.conf` (it rejoins, as a replica once its replica
/// took over), a replica can be promoted with `CLUSTER FAILOVER`, and slots can be moved live
/// with `redis-cli --cluster reshard`. ``stop()`` (also on deinit) kills exactly the processes it
/// started and removes their directories.
public final class RedisClusterServer: @unchecked Sendable {
    // @unchecked: `processes` is only read or replaced under `lock`.
    /// One node as `CLUSTER NODES` lists it.
    public struct Node: Sendable, Equatable {
        /// The node's 40-character id.
        public var id: String
        /// Its port on 127.0.0.1.
        public var port: Int
        /// Whether it is a master (else a replica).
        public var isMaster: Bool
        /// The master's id for a replica, nil for a master.
        public var masterID: String?
        /// Whether the cluster considers the node failed (`fail` or `fail?`).
        public var isFailing: Bool
    }

    /// The nodes' ports on 127.0.0.1 (the cluster bus of each is its port + 10000).
    public let ports: [Int]
    /// The parent of every node's directory.
    public let directory: URL
    /// `cluster-node-timeout` in milliseconds.
    public let nodeTimeoutMilliseconds: Int
    private let lock = NSLock()
    private var processes: [Int: Process] = [:]

    /// Whether `redis-server` and `redis-cli` can be found.
    public static var isAvailable: Bool { RedisServer.isAvailable }

    /// Starts six nodes and forms the cluster; `extraArguments` go to every `redis-server`.
    public init(nodeTimeoutMilliseconds: Int = 1000, extraArguments: [String] = []) throws {
        self.nodeTimeoutMilliseconds = nodeTimeoutMilliseconds
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("redis-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        ports = try Self.freePortPairs(6)
        self.extraArguments = extraArguments
        do {
            for port in ports { try start(port) }
            let addresses = ports.map { "127.0.0.1:\($0)" }
            let (status, output) = Self.redisCLI(["--cluster", "create"] + addresses + ["--cluster-replicas", "1", "--cluster-yes"])
            guard status == 0 else { throw ServerError("redis-cli --cluster create failed: \(output)") }
            try waitUntilHealthy(within: .seconds(30))
        } catch {
            stop()
            throw error
        }
    }

    private let extraArguments: [String]

    deinit { stop() }

    /// `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,…` naming every node as a seed.
    public var url: String { "redis+cluster://" + ports.map { "127.0.0.1:\($0)" }.joined(separator: ",") }

    /// The cluster's nodes as the node on `port` (default: the first running one) sees them.
    public func nodes(askingPort port: Int? = nil) -> [Node] {
        let asked = port ?? runningPorts.first ?? ports[0]
        return cli(asked, ["CLUSTER", "NODES"]).split(whereSeparator: \.isNewline).compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 8, let colon = fields[1].firstIndex(of: ":") else { return nil }
            let portText = fields[1][fields[1].index(after: colon)...].prefix { $0.isNumber }
            guard let port = Int(portText) else { return nil }
            let flags = fields[2].split(separator: ",")
            return Node(
                id: fields[0], port: port, isMaster: flags.contains("master"), masterID: fields[3] == "-" ? nil : fields[3],
                isFailing: flags.contains("fail") || flags.contains("fail?"))
        }
    }

    /// The masters that hold slots, as seen from a running node.
    public func masters() -> [Node] { nodes().filter { $0.isMaster && !$0.isFailing } }

    /// The replicas of the master with `id`.
    public func replicas(of id: String) -> [Node] { nodes().filter { $0.masterID == id } }

    /// Kills the node on `port` with SIGKILL (its directory and `nodes.conf` stay for ``restart(port:)``).
    public func kill(port: Int) {
        lock.lock()
        let process = processes.removeValue(forKey: port)
        lock.unlock()
        if let process, process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process?.waitUntilExit()
    }

    /// Starts the node on `port` again from its directory; it rejoins the cluster.
    public func restart(port: Int) throws {
        kill(port: port)
        for _ in 0..<50 {
            if (try? start(port)) != nil { return }
            usleep(100_000)
        }
        throw ServerError("redis-server did not restart on port \(port)")
    }

    /// Promotes the replica on `port` with `CLUSTER FAILOVER` (its master agrees; no data lost),
    /// then waits until the cluster is healthy again.
    public func failover(replicaPort port: Int, within limit: Duration = .seconds(20)) throws {
        let reply = cli(port, ["CLUSTER", "FAILOVER"])
        guard reply == "OK" else { throw ServerError("CLUSTER FAILOVER on \(port): \(reply)") }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if nodes(askingPort: port).first(where: { $0.port == port })?.isMaster == true { break }
            usleep(50_000)
        }
        try waitUntilHealthy(within: deadline - ContinuousClock.now)
    }

    /// Moves `slots` slots from the master `from` to the master `to` while the cluster serves
    /// (`redis-cli --cluster reshard`: keys move with `MIGRATE`, clients meet `ASK` and `MOVED`).
    public func reshard(slots: Int, from: String, to: String) throws {
        let (status, output) = Self.redisCLI([
            "--cluster", "reshard", "127.0.0.1:\(runningPorts.first ?? ports[0])", "--cluster-from", from, "--cluster-to", to,
            "--cluster-slots", "\(slots)", "--cluster-yes", "--cluster-pipeline", "10",
        ])
        guard status == 0 else { throw ServerError("redis-cli --cluster reshard failed: \(output.suffix(2000))") }
    }

    /// Waits until every running node says `cluster_state:ok`, they all list the same masters
    /// with the same slots, and every replica's link to its master is up (its data in sync).
    public func waitUntilHealthy(within limit: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + limit
        var last = ""
        while ContinuousClock.now < deadline {
            let running = runningPorts
            let states = running.map { cli($0, ["CLUSTER", "INFO"]) }
            let views = Set(running.map { slotView(askingPort: $0) })
            let replication = running.map { cli($0, ["INFO", "replication"]) }
            let synced = replication.allSatisfy { !$0.contains("role:slave") || $0.contains("master_link_status:up") }
            if states.allSatisfy({ $0.contains("cluster_state:ok") }), views.count == 1, synced { return }
            last = states.first { !$0.contains("cluster_state:ok") } ?? (views.count == 1 ? "a replica is not in sync" : "nodes disagree on the slot map")
            usleep(50_000)
        }
        throw ServerError("the cluster did not become healthy: \(last.prefix(500))")
    }

    /// Runs `redis-cli -p port arguments…` and returns its output without the trailing newline.
    public func cli(_ port: Int, _ arguments: [String]) -> String {
        Self.redisCLI(["-h", "127.0.0.1", "-p", "\(port)"] + arguments).output
    }

    /// A field of `INFO` on the node at `port` (for example `keyspace_hits`), or nil.
    public func info(_ port: Int, _ field: String) -> String? {
        cli(port, ["INFO"]).split(whereSeparator: \.isNewline)
            .first { $0.hasPrefix("\(field):") }
            .map { String($0.dropFirst(field.count + 1)).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// Kills every node it started and removes the directories. Idempotent.
    public func stop() {
        lock.lock()
        let all = processes
        processes = [:]
        lock.unlock()
        for process in all.values where process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        for process in all.values { process.waitUntilExit() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Ports of the nodes it runs now.
    public var runningPorts: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return ports.filter { processes[$0]?.isRunning == true }
    }

    /// Masters and their slot ranges, sorted, as one node sees them (`CLUSTER SLOTS` by port).
    private func slotView(askingPort port: Int) -> String {
        let lines = cli(port, ["CLUSTER", "NODES"]).split(whereSeparator: \.isNewline)
        return lines.compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count >= 9, fields[2].contains("master"), !fields[2].contains("fail") else { return nil }
            return "\(fields[1].prefix { $0 != "@" }) \(fields[8...].joined(separator: " "))"
        }.sorted().joined(separator: ";")
    }

    private func start(_ port: Int) throws {
        guard let server = NginxServer.executable("redis-server") else { throw ServerError("redis-server is not installed") }
        let node = directory.appendingPathComponent("\(port)")
        try FileManager.default.createDirectory(at: node, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: server)
        process.arguments = [
            "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
            "--cluster-enabled", "yes", "--repl-diskless-sync-delay", "0", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "\(nodeTimeoutMilliseconds)",
            "--dir", node.path, "--logfile", node.appendingPathComponent("redis.log").path,
        ] + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard NginxServer.waitForListener(port: port, process: process) else {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            throw ServerError("redis-server did not start on \(port)")
        }
        lock.lock()
        processes[port] = process
        lock.unlock()
    }

    /// Ports whose cluster bus port (+10000) is free as well.
    private static func freePortPairs(_ count: Int) throws -> [Int] {
        var chosen: [Int] = []
        var attempts = 0
        while chosen.count < count {
            attempts += 1
            guard attempts < 2000 else { throw ServerError("no free port pairs for a cluster") }
            let port = Int.random(in: 20000...30000)
            if !chosen.contains(port), isFree(port), isFree(port + 10000) { chosen.append(port) }
        }
        return chosen
    }

    private static func isFree(_ port: Int) -> Bool {
        NginxServer.withLoopbackSocket(port: port) { fd, address, length in bind(fd, address, length) == 0 }
    }

    private static func redisCLI(_ arguments: [String]) -> (status: Int32, output: String) {
        guard let cli = NginxServer.executable("redis-cli") else { return (-1, "redis-cli is not installed") }
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: cli)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        guard (try? process.run()) != nil else { return (-1, "redis-cli did not run") }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
