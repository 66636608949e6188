import Foundation
import ImageKernelTestSupport

/// Several `image-proxy` processes on one shared tier, behind nginx as a round-robin load
/// balancer (`upstream`; a request whose instance fails before it answered goes to the next).
final class Fleet: Sendable {
    let instances: [ProxyProcess]
    let balancer: NginxServer

    /// `count` instances started with `--shared-cache sharedCache`, allowed to load from `origin`.
    init(count: Int, sharedCache: String, origin: HTTPTestServer, extraArguments: [String] = []) throws {
        instances = try (0..<count).map { _ in
            try ProxyProcess(
                ["--allow-origin", origin.baseURL.absoluteString + "/", "--shared-cache", sharedCache, "--shared-cache-timeout-ms", "2000", "--log-level", "warning", "--source-timeout", "60"]
                    + extraArguments)
        }
        let servers = instances.map { "server 127.0.0.1:\($0.port) max_fails=1 fail_timeout=30s;" }.joined(separator: "\n")
        balancer = try NginxServer(
            tls: false,
            locations: """
            location /unsafe/ {
                proxy_pass http://fleet;
                proxy_next_upstream error timeout;
                proxy_read_timeout 90s;
            }
            """,
            http: "upstream fleet {\n\(servers)\n}")
    }

    deinit { stop() }

    func stop() {
        balancer.stop()
        for instance in instances { instance.stop() }
    }

    /// The URL of `path` through the load balancer.
    func url(_ path: String) -> URL { balancer.url(path) }

    /// `imageproxy_renders_total` of each running instance (nil for one that does not answer).
    func renders() async -> [Int?] {
        var counts: [Int?] = []
        for instance in instances {
            let metrics = try? await HTTP.get(instance.url("/metrics"))
            counts.append(metrics.map { Self.renders(inMetrics: String(decoding: $0.body, as: UTF8.self)) })
        }
        return counts
    }

    /// The value of `imageproxy_renders_total` in a Prometheus text page (0 when absent).
    static func renders(inMetrics text: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix("imageproxy_renders_total ") {
            return Int(line.split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }
}
