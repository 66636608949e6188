import Foundation

/// nginx on a free port of 127.0.0.1 serving one directory, from a temporary configuration.
///
/// With `accessLog` every request is logged (unbuffered) to a file in the temporary prefix, so a
/// benchmark can count the requests that reached the server with ``requestCount()``.
public final class Nginx: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init and Process is only touched by
    // stop(), which a benchmark calls once at the end.
    public let port: Int
    public let root: URL
    private let directory: URL
    private let process: Process
    private let accessLogPath: String?

    /// - Parameters:
    ///   - http: extra directives at `http` level (`limit_req_zone`, …).
    ///   - locations: extra blocks inside the server (`location / { limit_req … }`).
    ///   - logFormat: the access log's line format (nginx variables); nginx's default when nil.
    ///   - alsoListenOn: more loopback addresses (`127.0.0.2`, …) the server listens on, same port.
    public init(
        serving root: URL, accessLog: Bool = false, http: String = "", locations: String = "", logFormat: String? = nil,
        alsoListenOn: [String] = []
    ) throws {
        guard let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BenchError("nginx is not installed (apt-get install nginx)")
        }
        self.root = root
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-nginx-\(UUID().uuidString)")
        accessLogPath = accessLog ? directory.appendingPathComponent("access.log").path : nil
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let (dir, logPath, rootPath, configURL) = (directory.path, accessLogPath, root.path, directory.appendingPathComponent("nginx.conf"))
        let format = logFormat.map { "log_format bench '\($0)';" } ?? ""
        let access = logPath.map { $0 + (logFormat == nil ? "" : " bench") } ?? "off"
        let started = try LocalServer.start(nginx) { port in
            let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log warn;
            events { worker_connections 4096; }
            http {
                \(format)
                access_log \(access);
                \(http)
                sendfile on;
                tcp_nopush on;
                keepalive_requests 100000;
                client_body_temp_path \(dir)/tmp/body;
                proxy_temp_path \(dir)/tmp/proxy;
                fastcgi_temp_path \(dir)/tmp/fastcgi;
                uwsgi_temp_path \(dir)/tmp/uwsgi;
                scgi_temp_path \(dir)/tmp/scgi;
                server { listen 127.0.0.1:\(port); \(alsoListenOn.map { "listen \($0):\(port);" }.joined(separator: " ")) root \(rootPath); \(locations) }
            }
            """
            try config.write(to: configURL, atomically: true, encoding: .utf8)
            return ["-p", dir, "-c", "\(dir)/nginx.conf", "-e", "\(dir)/error.log"]
        }
        if let (process, port) = started {
            self.port = port
            self.process = process
            return
        }
        throw BenchError("nginx did not start; see \(directory.path)/error.log")
    }

    /// The URL of `path` (relative to the root) on this server, at `address`.
    public func url(_ path: String, address: String = "127.0.0.1") -> URL {
        URL(string: "http://\(address):\(port)/\(path)")!
    }

    /// The access log's lines so far; empty without `accessLog`.
    public func accessLog() -> [Substring] {
        guard let accessLogPath, let data = FileManager.default.contents(atPath: accessLogPath) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
    }

    /// Requests logged so far (one access-log line each); 0 without `accessLog`.
    public func requestCount() -> Int {
        guard let accessLogPath, let data = FileManager.default.contents(atPath: accessLogPath) else { return 0 }
        return data.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }

    /// Stops nginx (SIGKILL: a single-process nginx may inherit a mask that blocks SIGTERM).
    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

public struct BenchError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
