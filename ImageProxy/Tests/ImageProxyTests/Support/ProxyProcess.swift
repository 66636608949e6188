import Foundation
import Glibc

/// The built `image-proxy` executable, started as a user starts it (`--port 0`), stopped with
/// SIGTERM (then SIGKILL) when the test is done. Its request log goes to a file.
final class ProxyProcess: @unchecked Sendable {
    // @unchecked: every stored property is set in init; `stop()` is serialised by `lock`.
    let port: Int
    let logFile: URL
    private let process = Process()
    private let lock = NSLock()

    static let executable: URL? = {
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        return candidates.map { $0.appendingPathComponent("image-proxy") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Starts the proxy with `arguments` (besides `--port 0`) and `environment` (added to this
    /// process's, minus any `IMAGE_PROXY_*` or `IMGPROXY_*` of its own) and waits for `listening on …`.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        guard let executable = Self.executable else { throw TestFailure("image-proxy is not built next to the tests (swift build --package-path ImageProxy)") }
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("image-proxy-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let output = Pipe()
        process.executableURL = executable
        process.arguments = ["--port", "0"] + arguments
        var inherited = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("IMAGE_PROXY_") && !$0.key.hasPrefix("IMGPROXY_") }
        inherited.merge(environment) { _, new in new }
        process.environment = inherited
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte.first == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on http://127.0.0.1:"), let port = Int(text.split(separator: ":").last ?? "") else {
            process.waitUntilExit()
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw TestFailure("image-proxy did not start (\(text)): \(log.suffix(2000))")
        }
        self.port = port
    }

    deinit { stop() }

    /// The URL of `path` on the proxy.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The request log so far.
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Reports of a sanitizer the proxy was built with (`swift build --sanitize=thread`), if any.
    var sanitizerReports: [Substring] {
        log.split(separator: "\n").filter { $0.contains("WARNING: ThreadSanitizer") || $0.contains("ERROR: AddressSanitizer") }
    }

    /// Sends SIGTERM and waits up to `limit` for the process to exit. Returns its exit status,
    /// nil when it was still running (it is then killed).
    func terminate(within limit: Duration) async throws -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + limit
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        guard !process.isRunning else {
            stop()
            return nil
        }
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// Kills the process with SIGKILL (no drain, nothing finished) and waits for it.
    func killAbruptly() {
        lock.lock()
        defer { lock.unlock() }
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<100 where process.isRunning { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: logFile)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
