import Foundation
import ImageKernelTestSupport

/// Worker processes of `imagekernel queue work`, started beside each other.
final class QueueWorkerProcess: @unchecked Sendable {
    // @unchecked: the pipes' data is only read after the process ended, from one thread.
    let process = Process()
    private let out = Pipe(), err = Pipe()
    private var stdoutData = Data(), stderrData = Data()
    private let readers = DispatchGroup()

    init(_ arguments: [String]) throws {
        process.executableURL = CLI.binary
        process.arguments = ["queue", "work"] + arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Drained as they come, so a chatty worker never blocks on a full pipe.
        readers.enter()
        DispatchQueue.global().async { [self] in
            stdoutData = out.fileHandleForReading.readDataToEndOfFile()
            readers.leave()
        }
        readers.enter()
        DispatchQueue.global().async { [self] in
            stderrData = err.fileHandleForReading.readDataToEndOfFile()
            readers.leave()
        }
    }

    func kill(_ signal: Int32) { Glibc.kill(process.processIdentifier, signal) }

    /// Waits for the worker to end (bounded: a hung worker is killed and the output says so).
    func wait(within limit: Duration = .seconds(180)) -> CLI.Output {
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        let hung = process.isRunning
        if hung { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        readers.wait()
        return CLI.Output(status: hung ? -1 : process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                          stderr: (hung ? "HUNG\n" : "") + String(decoding: stderrData, as: UTF8.self))
    }
}

enum QueueFixtures {
    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-queue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func list(_ urls: [String], in dir: URL) throws -> String {
        let file = dir.appendingPathComponent("list-\(UUID().uuidString).txt")
        try urls.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// `queue stats` as a dictionary of its columns.
    static func stats(_ name: String, redis: String) throws -> [String: Int] {
        let output = try CLI.run(["queue", "stats", name, "--redis", redis])
        guard output.lines.count == 2 else { return [:] }
        return Dictionary(uniqueKeysWithValues: zip(output.lines[0], output.lines[1].map { Int($0) ?? -1 }))
    }

    /// How many shared-tier entries (`imagekernel:` and 64 hex digits) the server holds.
    static func tierEntries(_ redis: RedisServer) -> Int {
        let pattern = "imagekernel:" + String(repeating: "?", count: 64)
        return Int(redis.cli("EVAL", "return #redis.call('KEYS', ARGV[1])", "0", pattern)) ?? -1
    }

    /// `count` small distinct JPEGs.
    static func jpegs(_ count: Int) throws -> [(name: String, data: Data)] {
        BulkOrigin.distinctJPEGs(from: try TestData.data("jpeg/libjpeg-turbo/testorig.jpg"), count: count, size: 2_000)
    }
}

/// A redis-server, an origin serving `count` distinct JPEGs and a scratch directory, for one test.
final class QueueRig {
    let redis: RedisServer
    let server: HTTPTestServer
    let files: [(name: String, data: Data)]
    let dir: URL

    init(files count: Int, redisArguments: [String] = []) throws {
        redis = try RedisServer(extraArguments: redisArguments)
        server = try HTTPTestServer()
        files = try QueueFixtures.jpegs(count)
        for file in files { server.addFile(file.name, data: file.data) }
        dir = try QueueFixtures.scratch()
    }

    deinit {
        redis.stop()
        server.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    /// The files' URLs, each with `query` appended (`?delay=30`, say).
    func urls(_ query: String = "") -> [String] { files.map { server.url("/files/\($0.name)\(query)").absoluteString } }

    /// `queue push NAME` of `urls` to this rig's server.
    @discardableResult
    func push(_ name: String, _ urls: [String]) throws -> CLI.Output {
        try CLI.run(["queue", "push", name, "--redis", redis.url, "--from", try QueueFixtures.list(urls, in: dir)])
    }

    /// `queue work NAME` with the rig's server and scratch cache, plus `arguments`.
    func worker(_ name: String, _ arguments: [String] = []) throws -> QueueWorkerProcess {
        try QueueWorkerProcess([name, "--redis", redis.url, "--cache-dir", dir.appendingPathComponent("cache").path, "--until-empty"] + arguments)
    }

    func stats(_ name: String) throws -> [String: Int] { try QueueFixtures.stats(name, redis: redis.url) }
}
