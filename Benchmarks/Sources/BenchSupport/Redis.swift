import Foundation

/// redis-server on a free port of 127.0.0.1 without persistence, for benchmarks; runs
/// `redis-cli` and `redis-benchmark` against it.
public final class Redis: @unchecked Sendable {
    // @unchecked: immutable after init; stop() is called once at the end.
    public let port: Int
    private let process: Process
    private let directory: URL

    public init() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server") else {
            throw BenchError("redis-server is not installed (apt-get install redis-server)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (dir, logfile) = (directory.path, directory.appendingPathComponent("redis.log").path)
        let started = try LocalServer.start("/usr/bin/redis-server") { port in
            ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--logfile", logfile]
        }
        if let (process, port) = started {
            self.port = port
            self.process = process
            return
        }
        throw BenchError("redis-server did not start; see \(directory.path)/redis.log")
    }

    /// `redis://127.0.0.1:PORT`.
    public var url: String { "redis://127.0.0.1:\(port)" }

    /// Runs `/usr/bin/<tool> -h 127.0.0.1 -p PORT arguments...` and returns its standard output.
    public func run(_ tool: String, _ arguments: [String]) throws -> String {
        try Self.run(tool, port: port, arguments)
    }

    /// The GET rate and p50 latency (ms) of `redis-benchmark -t get … --csv` on the server at `port`.
    public static func benchmarkGET(port: Int, _ arguments: [String]) throws -> (rps: Double, p50: Double) {
        let csv = try run("redis-benchmark", port: port, ["-t", "get", "--csv"] + arguments)
        guard let row = csv.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("\"GET") }) else {
            throw BenchError("redis-benchmark printed no GET row: \(csv)")
        }
        let fields = row.split(separator: ",").map { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
        guard fields.count >= 5, let rps = fields[1], let p50 = fields[4] else { throw BenchError("cannot read \(row)") }
        return (rps, p50)
    }

    /// Runs `/usr/bin/<tool> -h 127.0.0.1 -p port arguments...` and returns its standard output.
    public static func run(_ tool: String, port: Int, _ arguments: [String]) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = ["-h", "127.0.0.1", "-p", "\(port)"] + arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// An integer field of `INFO` (for example `total_net_output_bytes`).
    public func info(_ field: String) throws -> Int {
        let line = try run("redis-cli", ["INFO"]).split(whereSeparator: \.isNewline).first { $0.hasPrefix("\(field):") }
        return line.flatMap { Int($0.dropFirst(field.count + 1)) } ?? 0
    }

    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
