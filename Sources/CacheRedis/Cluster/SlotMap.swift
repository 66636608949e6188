import Foundation

/// A node of the cluster by address (`host:port`); credentials come from the seeds.
struct NodeAddress: Hashable, Sendable, CustomStringConvertible {
    var host: String
    var port: Int

    /// `host:port` as `MOVED` and `ASK` name it (`[v6]:port` or `v6:port` alike); nil when it does not parse.
    init?(_ text: Substring) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { return nil }
        self.init(host: String(host), port: port)
    }

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Which node serves each of the 16,384 slots: shards of one master and its replicas, as
/// `CLUSTER SHARDS` (Redis 7) or `CLUSTER SLOTS` describe them.
struct SlotMap: Sendable, Equatable {
    struct Shard: Sendable, Equatable {
        var master: NodeAddress
        var replicas: [NodeAddress]
    }

    private(set) var shards: [Shard] = []
    /// Index into `shards` per slot; -1 for a slot no node serves.
    private var owners = [Int16](repeating: -1, count: HashSlot.count)

    /// The shard serving `slot`, nil when none does.
    func shard(for slot: Int) -> Shard? {
        let owner = owners[slot]
        return owner < 0 ? nil : shards[Int(owner)]
    }

    /// Every node in the map, masters first.
    var nodes: [NodeAddress] { shards.map(\.master) + shards.flatMap(\.replicas) }

    /// Slots some node serves.
    var coveredSlots: Int { owners.lazy.filter { $0 >= 0 }.count }

    /// Records a `MOVED`: `slot` is now served by the master at `address` (a new shard if it is
    /// not one of the map's masters).
    mutating func move(slot: Int, to address: NodeAddress) {
        let index = shards.firstIndex { $0.master == address } ?? {
            shards.append(Shard(master: address, replicas: []))
            return shards.count - 1
        }()
        owners[slot] = Int16(index)
    }

    private mutating func add(_ shard: Shard, slots: [ClosedRange<Int>]) {
        let index = shards.firstIndex(of: shard) ?? {
            shards.append(shard)
            return shards.count - 1
        }()
        for range in slots where range.lowerBound >= 0 && range.upperBound < HashSlot.count {
            for slot in range { owners[slot] = Int16(index) }
        }
    }

    /// The map in a `CLUSTER SHARDS` reply; nil when the reply has another shape or covers no
    /// slot. A node without an endpoint (`?` or empty) is at `asked`'s host. A `failed` node is
    /// left out, except a master that is its shard's only one (its slots stay its own until the
    /// cluster replaces it).
    init?(shardsReply reply: RedisReply, asked: NodeAddress) {
        guard case .array(let shards) = reply else { return nil }
        for shard in shards {
            let fields = Self.fields(shard)
            guard case .array(let bounds)? = fields["slots"], case .array(let nodes)? = fields["nodes"] else { return nil }
            let numbers = bounds.compactMap { if case .integer(let value) = $0 { value } else { nil } }
            let slots = stride(from: 0, to: numbers.count - 1, by: 2).map { numbers[$0]...max(numbers[$0], numbers[$0 + 1]) }
            var masters: [(NodeAddress, healthy: Bool)] = []
            var replicas: [NodeAddress] = []
            for node in nodes {
                let fields = Self.fields(node)
                guard case .integer(let port)? = fields["port"] else { continue }
                var host = Self.text(fields["endpoint"]) ?? Self.text(fields["ip"]) ?? ""
                if host.isEmpty || host == "?" { host = Self.text(fields["ip"]).flatMap { $0.isEmpty || $0 == "?" ? nil : $0 } ?? asked.host }
                let health = Self.text(fields["health"]) ?? "online"
                let address = NodeAddress(host: host, port: port)
                if Self.text(fields["role"]) == "master" {
                    masters.append((address, health != "failed"))
                } else if health != "failed" {
                    // Redis 7.0 calls a replica "loading" until gossip brings its first replication
                    // offset; one that really loads answers LOADING, and the read goes to the master.
                    replicas.append(address)
                }
            }
            guard !slots.isEmpty, let master = masters.first(where: \.healthy)?.0 ?? masters.first?.0 else { continue }
            add(Shard(master: master, replicas: replicas), slots: slots)
        }
        guard coveredSlots > 0 else { return nil }
    }

    /// The map in a `CLUSTER SLOTS` reply (`[start, end, [host, port, id…], replicas…]` per range).
    init?(slotsReply reply: RedisReply, asked: NodeAddress) {
        guard case .array(let ranges) = reply else { return nil }
        for range in ranges {
            guard case .array(let parts) = range, parts.count >= 3, case .integer(let start) = parts[0], case .integer(let end) = parts[1] else { return nil }
            let addresses = parts[2...].compactMap { part -> NodeAddress? in
                guard case .array(let node) = part, node.count >= 2, case .integer(let port) = node[1] else { return nil }
                let host = Self.text(node[0]).flatMap { $0.isEmpty || $0 == "?" ? nil : $0 } ?? asked.host
                return NodeAddress(host: host, port: port)
            }
            guard let master = addresses.first else { return nil }
            add(Shard(master: master, replicas: Array(addresses.dropFirst())), slots: [start...max(start, end)])
        }
        guard coveredSlots > 0 else { return nil }
    }

    /// A flat `[name, value, name, value…]` array as a dictionary.
    private static func fields(_ reply: RedisReply) -> [String: RedisReply] {
        guard case .array(let items) = reply else { return [:] }
        var fields: [String: RedisReply] = [:]
        for index in stride(from: 0, to: items.count - 1, by: 2) {
            if let name = text(items[index]) { fields[name] = items[index + 1] }
        }
        return fields
    }

    private static func text(_ reply: RedisReply?) -> String? {
        switch reply {
        case .string(let data)?: String(decoding: data, as: UTF8.self)
        case .status(let text)?: text
        default: nil
        }
    }
}
