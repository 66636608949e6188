import Foundation
import ImageKernel
import LoaderS3
#if canImport(Glibc)
import Glibc
#endif

/// A real S3 server for tests: Ceph's RADOS Gateway (`radosgw`) with one monitor and one OSD
/// keeping its objects in memory (`memstore`), all on 127.0.0.1 from a private temporary directory.
///
/// The daemons run in the foreground as children of this process; their pids are kept and exactly
/// those are stopped. Authentication inside the cluster is off (`auth … required = none`); the
/// gateway checks S3 signatures as ever. A user with ``accessKey`` / ``secretKey`` exists. Starting
/// takes 6–8 s, so tests share one per process: ``shared()``. `rgw dns name = localhost`, so
/// virtual-host requests go to `BUCKET.localhost:PORT` (curl resolves `*.localhost` to loopback).
public final class CephRGWServer: @unchecked Sendable {
    // @unchecked: `gateway` and `daemons` are only read or replaced under `lock`.
    /// The gateway's port on 127.0.0.1.
    public let port: Int
    /// The private directory (configuration, data, logs).
    public let directory: URL
    /// The S3 user's access key ID.
    public let accessKey = "IKTESTACCESSKEY0001"
    /// The S3 user's secret key.
    public let secretKey = "ikTestSecretKey/0001+ImageKernelRGW"
    let configPath: String
    private let lock = NSLock()
    private var daemons: [Process] = []
    private var gateway: Process?

    /// Whether the Ceph daemons and tools are installed (`ceph-mon ceph-osd radosgw ceph-common`).
    public static var isAvailable: Bool {
        ["ceph-mon", "ceph-osd", "radosgw", "ceph", "monmaptool", "radosgw-admin"].allSatisfy { NginxServer.executable($0) != nil }
    }

    private static let sharedServer = Locked<Result<CephRGWServer, ServerError>?>(nil)

    /// The process's one server, started on first use and stopped when the process exits.
    public static func shared() throws -> CephRGWServer {
        try sharedServer.withLock { shared in
            if let shared { return try shared.get() }
            do {
                let server = try CephRGWServer()
                shared = .success(server)
                atexit { try? CephRGWServer.sharedServer.withLock { $0 }?.get().stop() }
                return server
            } catch {
                let failure = error as? ServerError ?? ServerError("\(error)")
                shared = .failure(failure)
                throw failure
            }
        }
    }

    /// Starts a monitor, an OSD and the gateway, and creates the S3 user.
    /// - Throws: ``ServerError`` naming the step that failed, with the end of its log.
    public init() throws {
        guard Self.isAvailable else { throw ServerError("Ceph is not installed (ceph-mon ceph-osd radosgw ceph-common)") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rgw-\(UUID().uuidString.prefix(8))")
        for sub in ["run", "log", "mon", "osd"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let monPort = try NginxServer.freePort()
        port = try NginxServer.freePort()
        configPath = directory.appendingPathComponent("ceph.conf").path
        let fsid = UUID().uuidString.lowercased()
        try Self.configuration(fsid: fsid, directory: directory.path, monPort: monPort, gatewayPort: port)
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        do {
            try bootstrap(fsid: fsid, monPort: monPort)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT`, the endpoint for path-style requests.
    public var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// `http://localhost:PORT`, the endpoint for virtual-host requests (`BUCKET.localhost`).
    public var virtualHostEndpoint: URL { URL(string: "http://localhost:\(port)")! }

    /// The user's credentials.
    public var credentials: S3Credentials { S3Credentials(accessKeyID: accessKey, secretAccessKey: secretKey) }

    /// Stops the gateway only (the cluster keeps its data); ``startGateway()`` brings it back on the same port.
    public func stopGateway() {
        lock.lock()
        defer { lock.unlock() }
        if let gateway { Self.terminate(gateway) }
        gateway = nil
    }

    /// Starts the gateway again (after ``stopGateway()``) and waits until it answers.
    public func startGateway() throws {
        lock.lock()
        defer { lock.unlock() }
        guard gateway == nil else { return }
        gateway = try launchGateway()
    }

    /// Stops every daemon this server started and removes its directory. Idempotent.
    public func stop() {
        lock.lock()
        let all = (gateway.map { [$0] } ?? []) + daemons.reversed()
        gateway = nil
        daemons = []
        lock.unlock()
        for process in all { Self.terminate(process) }
        try? FileManager.default.removeItem(at: directory)
    }

    private func bootstrap(fsid: String, monPort: Int) throws {
        let dir = directory.path
        try run("monmaptool", ["--create", "--fsid", fsid, "--addv", "a", "[v2:127.0.0.1:\(monPort)]", "\(dir)/monmap"], step: "monmaptool")
        try run("ceph-mon", ["-c", configPath, "--mkfs", "-i", "a", "--monmap", "\(dir)/monmap"], step: "ceph-mon --mkfs")
        daemons.append(try launch("ceph-mon", ["-c", configPath, "-i", "a", "-f"], log: "mon.out"))
        try run("ceph", ["-c", configPath, "--connect-timeout", "15", "mon", "stat"], step: "waiting for the monitor")
        // The gateway's pools exist before the OSD boots: otherwise radosgw spends seconds creating them.
        let pools = [".rgw.root", "default.rgw.log", "default.rgw.control", "default.rgw.meta", "default.rgw.buckets.index",
                     "default.rgw.buckets.data", "default.rgw.buckets.non-ec"]
        let script = pools.map { "osd pool create \($0) 8 8 replicated\nosd pool application enable \($0) rgw\n" }.joined()
        try run("ceph", ["-c", configPath, "--connect-timeout", "15"], input: script, step: "creating the pools")
        let osdUUID = UUID().uuidString.lowercased()
        let osdID = try run("ceph", ["-c", configPath, "--connect-timeout", "15", "osd", "new", osdUUID], step: "ceph osd new")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.createDirectory(atPath: "\(dir)/osd/ceph-\(osdID)", withIntermediateDirectories: true)
        try run("ceph-osd", ["-c", configPath, "-i", osdID, "--mkfs", "--osd-uuid", osdUUID], step: "ceph-osd --mkfs")
        daemons.append(try launch("ceph-osd", ["-c", configPath, "-i", osdID, "-f"], log: "osd.out"))
        try waitUntil("the OSD is up", seconds: 30) {
            (try? self.run("ceph", ["-c", self.configPath, "--connect-timeout", "5", "osd", "stat"], step: "osd stat"))?.contains("1 up") == true
        }
        gateway = try launchGateway()
        try run("radosgw-admin", [
            "-c", configPath, "-n", "client.rgw.test", "user", "create", "--uid", "imagekernel", "--display-name", "ImageKernel tests",
            "--access-key", accessKey, "--secret-key", secretKey,
        ], step: "radosgw-admin user create")
    }

    private func launchGateway() throws -> Process {
        let process = try launch("radosgw", ["-c", configPath, "-n", "client.rgw.test", "-f"], log: "rgw.out")
        guard NginxServer.waitForListener(port: port, process: process) else {
            Self.terminate(process)
            throw ServerError("radosgw did not listen on \(port): \(tail("log/ceph-client.rgw.test.log"))")
        }
        return process
    }
}
