import Foundation

/// nginx started for one test (or benchmark) on a free port of 127.0.0.1, from a temporary
/// directory holding its configuration, files, logs and — for TLS — a self-signed certificate
/// made with `openssl req` at start. Used where a real TLS/HTTP/2 server is needed.
public final class NginxServer: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init; `Process` is only touched in
    // `stop()`, which `stopLock` serialises.
    /// The port on 127.0.0.1.
    public let port: Int
    /// The temporary directory (served files are under `www/`).
    public let directory: URL
    /// `https` or `http`.
    public let scheme: String
    private let process: Process
    private let stopLock = NSLock()

    /// Whether `nginx` and `openssl` can be found (Debian paths or `PATH`).
    public static var isAvailable: Bool { executable("nginx") != nil && executable("openssl") != nil }

    /// The default access-log line: `uri protocol connection status`.
    public static let defaultLogFormat = "$uri $server_protocol $connection $status"

    /// Starts nginx serving `files` (name → bytes) from `/`, plus any extra `location` blocks.
    /// The access log records `logFormat` per request (default `uri protocol connection status`).
    /// - Parameters:
    ///   - http: extra directives at `http` level (`limit_req_zone`, `limit_conn_zone`, …).
    ///   - addresses: the loopback addresses to listen on, all on the same port (127.0.0.2 and up
    ///     stand for other hosts; Linux routes all of 127/8 to loopback).
    public init(
        tls: Bool, http2: Bool = false, files: [String: Data] = [:], locations: String = "", http: String = "",
        addresses: [String] = ["127.0.0.1"], logFormat: String = NginxServer.defaultLogFormat
    ) throws {
        guard let nginx = Self.executable("nginx") else { throw ServerError("nginx is not installed") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)")
        let www = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: www.appendingPathComponent(name)) }
        if tls { try Self.makeCertificate(in: directory) }
        scheme = tls ? "https" : "http"
        var lastError = "nginx did not start"
        for _ in 0..<5 {
            let candidate = try Self.freePort()
            let config = Self.configuration(
                directory: directory, port: candidate, tls: tls, http2: http2, locations: locations, http: http,
                addresses: addresses, logFormat: logFormat)
            try config.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: nginx)
            process.arguments = ["-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path,
                                 "-e", directory.appendingPathComponent("error.log").path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Self.waitForListener(port: candidate, process: process) {
                self.port = candidate
                self.process = process
                return
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            lastError = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? lastError
        }
        throw ServerError("nginx did not start: \(lastError)")
    }

    deinit { stop() }

    /// The URL of a path on this server.
    public func url(_ path: String) -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path.hasPrefix("/") ? "" : "/")\(path)")!
    }

    /// The URL of a path on this server at one of its addresses.
    public func url(_ path: String, address: String) -> URL {
        URL(string: "\(scheme)://\(address):\(port)\(path.hasPrefix("/") ? "" : "/")\(path)")!
    }

    /// Access-log lines so far, in the log format (default `uri protocol connection status`).
    public func accessLog() -> [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Stops nginx and removes the directory. Idempotent.
    public func stop() {
        stopLock.lock()
        defer { stopLock.unlock() }
        guard FileManager.default.fileExists(atPath: directory.path) else { return }
        // SIGKILL, not SIGTERM: a child spawned from a dispatch worker thread inherits its
        // blocked-signal mask, and nginx in single-process mode never unblocks SIGTERM.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Helpers

    static func executable(_ name: String) -> String? {
        let paths = ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return paths.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func makeCertificate(in directory: URL) throws {
        guard let openssl = executable("openssl") else { throw ServerError("openssl is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", directory.appendingPathComponent("key.pem").path,
            "-out", directory.appendingPathComponent("cert.pem").path,
            "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ServerError("openssl req failed (\(process.terminationStatus))") }
    }

    static func freePort() throws -> Int {
        let socket = try ListeningSocket()
        defer { socket.close() }
        return socket.port
    }

    static func waitForListener(port: Int, process: Process) -> Bool {
        for _ in 0..<200 {
            guard process.isRunning else { return false }
            if canConnect(port: port) { return true }
            usleep(20_000)
        }
        return false
    }

    static func canConnect(port: Int) -> Bool {
        withLoopbackSocket(port: port) { fd, address, length in connect(fd, address, length) == 0 }
    }

    /// Runs `body` with a fresh TCP socket (closed afterwards) and the address 127.0.0.1:`port`;
    /// false when no socket could be made.
    static func withLoopbackSocket(port: Int, _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private static func configuration(
        directory: URL, port: Int, tls: Bool, http2: Bool, locations: String, http: String, addresses: [String], logFormat: String
    ) -> String {
        let dir = directory.path
        let listen = addresses.map { "listen \($0):\(port)" + (tls ? " ssl" : "") + (http2 ? " http2" : "") + ";" }
            .joined(separator: "\n                ")
        let certificate = tls ? "ssl_certificate \(dir)/cert.pem;\n        ssl_certificate_key \(dir)/key.pem;" : ""
        return """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(dir)/nginx.pid;
        error_log \(dir)/error.log warn;
        events { worker_connections 4096; }
        http {
            log_format probe '\(logFormat)';
            access_log \(dir)/access.log probe;
            client_body_temp_path \(dir)/tmp/body;
            proxy_temp_path \(dir)/tmp/proxy;
            fastcgi_temp_path \(dir)/tmp/fastcgi;
            uwsgi_temp_path \(dir)/tmp/uwsgi;
            scgi_temp_path \(dir)/tmp/scgi;
            keepalive_requests 100000;
            \(http)
            server {
                \(listen)
                \(certificate)
                root \(dir)/www;
                \(locations)
            }
        }
        """
    }
}
