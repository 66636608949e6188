import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension CephRGWServer {
    /// The cluster's configuration: everything on 127.0.0.1 under `directory`, no cephx, one
    /// replica, memstore, fast paxos, and the two gateway settings without which it waits 300 s
    /// for a cephx monitor session.
    static func configuration(fsid: String, directory: String, monPort: Int, gatewayPort: Int) -> String {
        """
        [global]
        fsid = \(fsid)
        mon host = v2:127.0.0.1:\(monPort)
        public addr = 127.0.0.1
        auth cluster required = none
        auth service required = none
        auth client required = none
        run dir = \(directory)/run
        admin socket = \(directory)/run/$cluster-$name.$pid.asok
        pid file = \(directory)/run/$cluster-$name.pid
        log file = \(directory)/log/$cluster-$name.log
        mon data = \(directory)/mon/$cluster-$id
        osd pool default size = 1
        osd pool default min size = 1
        osd pool default pg num = 8
        osd pool default pg autoscale mode = off
        osd crush chooseleaf type = 0
        mon allow pool size one = true
        mon warn on pool no redundancy = false
        paxos propose interval = 0.1
        [osd]
        osd objectstore = memstore
        memstore device bytes = 1073741824
        osd data = \(directory)/osd/$cluster-$id
        [client.rgw.test]
        rgw frontends = beast endpoint=127.0.0.1:\(gatewayPort) tcp_nodelay=1
        rgw dns name = localhost
        ms mon client mode = crc

        """
    }

    /// Starts a daemon in the foreground, its output in `log/<log>`.
    func launch(_ tool: String, _ arguments: [String], log: String) throws -> Process {
        let (process, output) = try makeProcess(tool, arguments, output: directory.appendingPathComponent("log/\(log)").path)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? output.close()
        return process
    }

    /// A process for `tool` whose standard output and error go to the file at `path`.
    private func makeProcess(_ tool: String, _ arguments: [String], output path: String) throws -> (Process, FileHandle) {
        guard let executable = NginxServer.executable(tool) else { throw ServerError("\(tool) is not installed") }
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        return (process, output)
    }

    /// Runs a tool to its end (at most `timeout` seconds) and returns its standard output.
    /// - Throws: ``ServerError`` naming `step` when it fails or takes too long.
    @discardableResult
    func run(_ tool: String, _ arguments: [String], input: String? = nil, timeout: Double = 30, step: String) throws -> String {
        let outPath = directory.appendingPathComponent("log/\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        let (process, output) = try makeProcess(tool, arguments, output: outPath)
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        let finished = done.wait(timeout: .now() + timeout) == .success
        try? output.close()
        let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        guard finished else {
            Self.terminate(process)
            throw ServerError("Ceph: \(step) took more than \(Int(timeout)) s: \(text.suffix(600))")
        }
        guard process.terminationStatus == 0 else {
            throw ServerError("Ceph: \(step) failed (\(process.terminationStatus)): \(text.suffix(600))")
        }
        return text
    }

    /// Polls `condition` every 100 ms for at most `seconds`.
    func waitUntil(_ what: String, seconds: Double, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return }
            usleep(100_000)
        }
        throw ServerError("Ceph: \(what) did not happen within \(Int(seconds)) s: \(tail("log/osd.out"))")
    }

    /// The end of a log file under the directory.
    func tail(_ relative: String) -> String {
        let text = (try? String(contentsOf: directory.appendingPathComponent(relative), encoding: .utf8)) ?? ""
        return String(text.suffix(600))
    }

    /// SIGTERM, up to 3 s to exit, then SIGKILL; waits for the exit.
    static func terminate(_ process: Process) {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
