import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `redis-server` started for one test (or benchmark) on a free port of 127.0.0.1, without
/// persistence (`--save '' --appendonly no`), from its own temporary directory.
public final class RedisServer: @unchecked Sendable {
    // @unchecked: `process` is only read or replaced under `lock`.
    /// The port on 127.0.0.1; a restart keeps it.
    public let port: Int
    /// The temporary directory (the server's working directory and log).
    public let directory: URL
    private let arguments: [String]
    private let lock = NSLock()
    private var process: Process?

    /// Whether `redis-server` and `redis-cli` can be found (Debian paths or `PATH`).
    public static var isAvailable: Bool { NginxServer.executable("redis-server") != nil && NginxServer.executable("redis-cli") != nil }

    /// Starts a server; `extraArguments` are passed on (for example `["--maxmemory", "2mb"]`).
    public init(extraArguments: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var lastError = "redis-server did not start"
        for _ in 0..<5 {
            let candidate = try NginxServer.freePort()
            let arguments = [
                "--port", "\(candidate)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--dir", directory.path, "--logfile", directory.appendingPathComponent("redis.log").path,
            ] + extraArguments
            if let started = try Self.launch(arguments, port: candidate) {
                port = candidate
                self.arguments = arguments
                process = started
                return
            }
            lastError = (try? String(contentsOf: directory.appendingPathComponent("redis.log"), encoding: .utf8)) ?? lastError
        }
        try? FileManager.default.removeItem(at: directory)
        throw ServerError("redis-server did not start: \(lastError)")
    }

    deinit { stop() }

    /// `redis://127.0.0.1:PORT`.
    public var url: String { "redis://127.0.0.1:\(port)" }

    /// Kills the server (SIGKILL: no goodbye to clients); ``restart()`` brings it back empty on the same port.
    ///
    /// Returns once the port refuses connections (at most 10 s), which is when clients see the
    /// server gone. It does not wait for Foundation to reap the process: in one CI run a test
    /// thread that waited for its children that way (this wait, or `redis-cli`'s) was held until
    /// another child, the tool under test, ended.
    public func kill() {
        lock.lock()
        defer { lock.unlock() }
        guard let process else { return }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        self.process = nil
        var waits = 0
        while waits < 500, NginxServer.canConnect(port: port) {
            usleep(20_000)
            waits += 1
        }
    }

    /// An integer reply (`DBSIZE`, `EXISTS key`…) read over a socket of its own, without
    /// `redis-cli`: nil when the server does not answer within a second. Safe to call from a thread
    /// that runs beside a child process (``cli(_:)`` starts one and waits for it).
    public func integer(_ command: String...) -> Int? {
        var reply: Int?
        _ = NginxServer.withLoopbackSocket(port: port) { fd, address, length in
            var limit = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            guard connect(fd, address, length) == 0 else { return false }
            let socket = Socket(fd: fd)
            let request = "*\(command.count)\r\n" + command.map { "$\($0.utf8.count)\r\n\($0)\r\n" }.joined()
            guard socket.send(request) else { return false }
            var received = Data()
            while !received.contains(UInt8(ascii: "\n")), received.count < 64, let more = socket.receive(limit: 64) { received += more }
            let line = String(decoding: received, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard line.hasPrefix(":") else { return false }
            reply = Int(line.dropFirst())
            return true
        }
        return reply
    }

    /// Starts the server again on the same port (killing it first if it runs).
    public func restart() throws {
        kill()
        lock.lock()
        defer { lock.unlock() }
        for _ in 0..<50 {
            if let started = try Self.launch(arguments, port: port) {
                process = started
                return
            }
            usleep(100_000)
        }
        throw ServerError("redis-server did not restart on port \(port)")
    }

    /// Runs `redis-cli -p PORT arguments...` and returns its output without the trailing newline.
    public func cli(_ arguments: String...) -> String {
        guard let cli = NginxServer.executable("redis-cli") else { return "" }
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: cli)
        process.arguments = ["-h", "127.0.0.1", "-p", "\(port)"] + arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "" }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A field of `INFO` (for example `evicted_keys`), or nil.
    public func info(_ field: String) -> String? {
        cli("INFO").split(whereSeparator: \.isNewline)
            .first { $0.hasPrefix("\(field):") }
            .map { String($0.dropFirst(field.count + 1)) }
    }

    /// Stops the server and removes the directory. Idempotent.
    public func stop() {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func launch(_ arguments: [String], port: Int) throws -> Process? {
        guard let server = NginxServer.executable("redis-server") else { throw ServerError("redis-server is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: server)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        if NginxServer.waitForListener(port: port, process: process) { return process }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return nil
    }
}

/// A socket on 127.0.0.1 that accepts connections (the kernel completes the handshake) and never
/// reads or answers: a server that hangs.
public final class SilentListener: Sendable {
    private let socket: ListeningSocket
    /// The port on 127.0.0.1.
    public var port: Int { socket.port }

    public init() throws { socket = try ListeningSocket() }

    deinit { socket.close() }
}
