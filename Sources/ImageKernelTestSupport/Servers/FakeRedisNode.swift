import Foundation
import ImageKernel
#if canImport(Glibc)
import Glibc
#endif

/// A scripted Redis node on 127.0.0.1 speaking RESP2, for the answers a real cluster gives only
/// by chance (as hiredis-cluster's tests do): `MOVED`, `ASK`, `TRYAGAIN`, `CLUSTERDOWN`, a slot
/// map that changes between two calls, a node that stalls.
///
/// Each command (an array of bulk strings, pipelined or not) goes to the script, which answers
/// with an ``Action``; a nil from the script gives the default behaviour: `GET`, `SET` (options
/// ignored), `DEL` and `EXISTS` on an in-memory dictionary, `+OK` for `ASKING`, `READONLY`,
/// `AUTH` and `SELECT`, `+PONG` for `PING`, an error for anything else. Every command is recorded.
/// One thread per connection; ``stop()`` (also on deinit) closes them all.
public final class FakeRedisNode: Sendable {
    /// What the node does with one command.
    public enum Action: Sendable {
        /// Sends this reply.
        case reply(RESPValue)
        /// Never answers this command or any later one on the connection (the socket stays open).
        case stall
        /// Closes the connection without answering.
        case close
    }

    /// A RESP2 value.
    public indirect enum RESPValue: Sendable, Equatable {
        /// `+text`, as `OK`.
        case status(String)
        /// `-text`, as `MOVED 3999 127.0.0.1:7002`.
        case error(String)
        /// `:number`.
        case integer(Int)
        /// `$length` and the bytes.
        case bulk(Data)
        /// `$-1`, the nil bulk string (a missing key).
        case null
        /// `*count` and the elements.
        case array([RESPValue])

        /// A bulk string of the text's UTF-8 bytes.
        public static func text(_ text: String) -> RESPValue { .bulk(Data(text.utf8)) }

        /// The value on the wire.
        public var encoded: Data {
            switch self {
            case .status(let text): return Data("+\(text)\r\n".utf8)
            case .error(let text): return Data("-\(text)\r\n".utf8)
            case .integer(let value): return Data(":\(value)\r\n".utf8)
            case .bulk(let data): return Data("$\(data.count)\r\n".utf8) + data + Data("\r\n".utf8)
            case .null: return Data("$-1\r\n".utf8)
            case .array(let values): return values.reduce(Data("*\(values.count)\r\n".utf8)) { $0 + $1.encoded }
            }
        }
    }

    /// One shard of a `CLUSTER SHARDS` or `CLUSTER SLOTS` reply that the script builds.
    public struct Shard: Sendable {
        /// The slot ranges it serves.
        public var slots: [ClosedRange<Int>]
        /// The master's port on 127.0.0.1.
        public var masterPort: Int
        /// The replicas' ports on 127.0.0.1.
        public var replicaPorts: [Int]

        public init(slots: [ClosedRange<Int>], masterPort: Int, replicaPorts: [Int] = []) {
            self.slots = slots
            self.masterPort = masterPort
            self.replicaPorts = replicaPorts
        }
    }

    /// The command's arguments as text (values as UTF-8, lossy) and which connection it came on (from 0).
    public typealias Script = @Sendable (_ command: [String], _ connection: Int) -> Action?

    /// The port on 127.0.0.1.
    public let port: Int
    private let threads: ConnectionThreads
    private let script: Script
    private let state = Locked(State())

    private struct State {
        var values: [String: Data] = [:]
        var commands: [[String]] = []
    }

    /// Starts listening on a free port; `script` answers each command (nil: the default behaviour).
    public init(script: @escaping Script = { _, _ in nil }) throws {
        threads = try ConnectionThreads()
        port = threads.port
        self.script = script
        threads.start(name: "FakeRedisNode") { [self] socket, number in serve(socket, connection: number) }
    }

    deinit { stop() }

    /// `redis://127.0.0.1:PORT`.
    public var url: String { "redis://127.0.0.1:\(port)" }

    /// Every command received so far, in order.
    public var commands: [[String]] { state.withLock { $0.commands } }

    /// How many commands named `name` (case-insensitive) were received.
    public func count(_ name: String) -> Int { commands.filter { $0.first?.uppercased() == name.uppercased() }.count }

    /// Connections accepted so far.
    public var connectionCount: Int { threads.connectionCount }

    /// Sets a value in the default dictionary.
    public func set(_ key: String, _ value: Data) { state.withLock { $0.values[key] = value } }

    /// A value in the default dictionary.
    public func value(_ key: String) -> Data? { state.withLock { $0.values[key] } }

    /// The reply to `CLUSTER SHARDS` (Redis 7) for these shards, every node on 127.0.0.1 and online.
    public static func shardsReply(_ shards: [Shard]) -> RESPValue {
        .array(shards.enumerated().map { index, shard in
            let slots = shard.slots.flatMap { [RESPValue.integer($0.lowerBound), .integer($0.upperBound)] }
            func node(_ port: Int, _ role: String) -> RESPValue {
                .array([
                    .text("id"), .text(String(repeating: "\(index)", count: 40)), .text("port"), .integer(port),
                    .text("ip"), .text("127.0.0.1"), .text("endpoint"), .text("127.0.0.1"), .text("role"), .text(role),
                    .text("replication-offset"), .integer(0), .text("health"), .text("online"),
                ])
            }
            let nodes = [node(shard.masterPort, "master")] + shard.replicaPorts.map { node($0, "replica") }
            return .array([.text("slots"), .array(slots), .text("nodes"), .array(nodes)])
        })
    }

    /// The reply to `CLUSTER SLOTS` (before Redis 7) for these shards.
    public static func slotsReply(_ shards: [Shard]) -> RESPValue {
        .array(shards.flatMap { shard in
            shard.slots.map { range in
                let nodes = ([shard.masterPort] + shard.replicaPorts).map { RESPValue.array([.text("127.0.0.1"), .integer($0), .text("id\($0)")]) }
                return RESPValue.array([.integer(range.lowerBound), .integer(range.upperBound)] + nodes)
            }
        })
    }

    /// Stops accepting and closes every connection. Idempotent.
    public func stop() { threads.stop() }

    private func serve(_ socket: Socket, connection: Int) {
        var parser = RESPCommandParser()
        var stalled = false
        while let bytes = socket.receive() {
            guard !stalled else { continue }
            parser.append(bytes)
            while let command = parser.next() {
                let text = command.map { String(decoding: $0, as: UTF8.self) }
                state.withLock { $0.commands.append(text) }
                switch script(text, connection) ?? defaultAction(command) {
                case .reply(let value):
                    guard socket.send(value.encoded) else { return }
                case .stall:
                    stalled = true
                case .close:
                    return
                }
                if stalled { break }
            }
            if parser.isBroken { return }
        }
    }

    private func defaultAction(_ command: [Data]) -> Action {
        let name = String(decoding: command.first ?? Data(), as: UTF8.self).uppercased()
        let key = command.count > 1 ? String(decoding: command[1], as: UTF8.self) : ""
        switch (name, command.count) {
        case ("GET", 2):
            return .reply(state.withLock { $0.values[key] }.map(RESPValue.bulk) ?? .null)
        case ("SET", 3...):
            state.withLock { $0.values[key] = command[2] }
            return .reply(.status("OK"))
        case ("DEL", 2...), ("EXISTS", 2...):
            let keys = command.dropFirst().map { String(decoding: $0, as: UTF8.self) }
            let found = state.withLock { state in
                keys.filter { state.values[$0] != nil }.count
            }
            if name == "DEL" { state.withLock { state in keys.forEach { state.values[$0] = nil } } }
            return .reply(.integer(found))
        case ("ASKING", 1), ("READONLY", 1), ("AUTH", _), ("SELECT", 2):
            return .reply(.status("OK"))
        case ("PING", 1):
            return .reply(.status("PONG"))
        default:
            return .reply(.error("ERR unknown command '\(name)' for the fake node"))
        }
    }
}

/// Splits received bytes into commands (arrays of bulk strings), as many as are complete.
struct RESPCommandParser {
    private var buffer = Data()
    private(set) var isBroken = false

    mutating func append(_ bytes: Data) { buffer.append(bytes) }

    /// The next complete command, or nil until more bytes arrive (or the stream is broken).
    mutating func next() -> [Data]? {
        var cursor = buffer.startIndex
        guard !isBroken, let count = readHeader("*", &cursor) else { return nil }
        var parts: [Data] = []
        for _ in 0..<count {
            guard let length = readHeader("$", &cursor), buffer.endIndex - cursor >= length + 2 else { return nil }
            parts.append(Data(buffer[cursor..<cursor + length]))
            cursor += length + 2
        }
        buffer = Data(buffer[cursor...])
        return parts
    }

    /// Reads `<marker><number>\r\n` at the cursor; nil when incomplete (a malformed line breaks the stream).
    private mutating func readHeader(_ marker: Character, _ cursor: inout Data.Index) -> Int? {
        guard cursor < buffer.endIndex else { return nil }
        guard buffer[cursor] == marker.asciiValue else {
            isBroken = true
            return nil
        }
        guard let end = buffer[cursor...].firstIndex(of: 13), end + 1 < buffer.endIndex else { return nil }
        guard let number = Int(String(decoding: buffer[(cursor + 1)..<end], as: UTF8.self)), number >= 0 else {
            isBroken = true
            return nil
        }
        cursor = end + 2
        return number
    }
}
