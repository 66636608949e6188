import Foundation
import ImageKernel

/// A small HTTP/1.1 server on 127.0.0.1 for tests: one thread per connection, keep-alive, and
/// routes that misbehave on purpose (delay, stall, drop mid-body, endless bodies, any status,
/// redirect chains and loops, Basic auth, cookies, conditional requests). It records every
/// request, counts them per path, and notices when a client closes a connection mid-response.
///
/// Routes (`<name>` is a file added with ``addFile(_:data:etag:lastModified:)``):
/// - `/files/<name>` — the file, with ETag/Last-Modified and 304 for matching validators.
///   Query: `delay=ms` before answering, `chunked=1` (no Content-Length), `chunk=bytes` and
///   `pace=ms` to send the body in pieces with pauses, `hold=<gate>` to send half the body and the
///   rest once the gate opens.
/// - `/gate/<gate>/<name>` — waits until ``openGate(_:)`` opens `<gate>`, then serves the file.
/// - `/status/<code>` — answers that status with a short text body; query items become response
///   headers (`/status/429?Retry-After=7`).
/// - `/flaky/<n>/<name>` — the first `n` requests get `?status=` (default 503), with the other
///   query items as headers (`?status=429&Retry-After=1`); later requests get the file.
/// - `/redirect/<n>/<rest>` — 302 to `/redirect/<n-1>/<rest>`, and from 0 to `/<rest>`.
/// - `/loop/a`, `/loop/b` — redirect to each other forever.
/// - `/redirect-to?url=<absolute>` — 302 to any URL.
/// - `/stall` — never answers; `/stall-body/<bytes>` sends the head and half the body, then stalls.
/// - `/drop/<name>` — announces the whole file, sends half, closes the connection.
/// - `/resumable/<name>` — `Accept-Ranges: bytes`, a strong ETag and Last-Modified, 206 for
///   `Range: bytes=N-` (with a matching `If-Range`); `?drop=N` cuts the first answer after N
///   bytes, `?ignoreRange=1` always answers 200, `?weak=1` offers only a weak ETag.
/// - `/endless` — a chunked body that never ends; `/garbage` — a reply that is not HTTP.
/// - `/big/<bytes>` — that many bytes with a Content-Length; `?chunked=1` without one.
/// - `/auth/<name>` — the file for Basic ``user``:``password``, else 401 with a challenge.
/// - `/cookie/set/<cookie>?value=v` — sets the cookie; `/cookie/check/<cookie>/<name>` serves the
///   file only when the request carries the cookie, else 403.
/// - `/echo-headers` — the request headers as `name: value` lines, sorted.
/// - `/s3-region/<region>/<name>` — an S3 bucket (`s3-region`, path-style) that lives in `<region>`:
///   the file for a request signed for that region (`Authorization` scope `/<region>/s3/`), else
///   S3's 301 `PermanentRedirect` with `x-amz-bucket-region` (a real single-region store never says it).
/// - `/latest/…` — EC2's instance metadata service, IMDSv2: `PUT /latest/api/token` (with
///   `X-aws-ec2-metadata-token-ttl-seconds`) gives a token; with it,
///   `/latest/meta-data/iam/security-credentials/` names the role `ik-role` and
///   `…/ik-role` answers the file `imds-credentials`; without it, 401.
/// - `/wrong-length/<name>?by=N`, `/huge-header/<name>`, `/reset/<name>`, `/raw/<name>` — see `faultRoute`.
public final class HTTPTestServer: Sendable {
    /// The user name `/auth/` accepts.
    public static let user = "tester"
    /// The password `/auth/` accepts.
    public static let password = "s3cret"

    /// The port on 127.0.0.1.
    public let port: Int
    private let threads: ConnectionThreads
    let state = Locked(State())

    struct ServedFile {
        var data: Data
        var etag: String?
        var lastModified: String?
    }

    struct State {
        var files: [String: ServedFile] = [:]
        var openGates: Set<String> = []
        var requests: [RecordedRequest] = []
        var counts: [String: Int] = [:]
        var clientCloses: [String: Int] = [:]
    }

    /// Starts listening on a free port of 127.0.0.1.
    public init() throws {
        threads = try ConnectionThreads()
        port = threads.port
        threads.start(name: "HTTPTestServer") { [self] socket, number in
            Connection(server: self, socket: socket, number: number).serve()
        }
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The URL of a path (with an optional query) on this server.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(pathAndQuery.hasPrefix("/") ? "" : "/")\(pathAndQuery)")!
    }

    /// Serves `data` under `/files/<name>` (and the other routes that take a file name).
    public func addFile(_ name: String, data: Data, etag: String? = nil, lastModified: String? = nil) {
        state.withLock { $0.files[name] = ServedFile(data: data, etag: etag, lastModified: lastModified) }
    }

    /// Lets requests waiting on `/gate/<name>/…` (now and later) proceed.
    public func openGate(_ name: String) {
        _ = state.withLock { $0.openGates.insert(name) }
    }

    /// How many requests arrived for the path (query ignored).
    public func requestCount(path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }

    /// Every request so far, in arrival order.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// How many connections were accepted.
    public var connectionCount: Int { threads.connectionCount }

    /// How many times a client closed the connection while a response for the path was pending
    /// or being sent.
    public func clientCloseCount(path: String) -> Int { state.withLock { $0.clientCloses[path] ?? 0 } }

    /// Stops accepting, closes every connection. Idempotent.
    public func stop() { threads.stop() }

    var isStopped: Bool { threads.isStopped }

    func record(_ head: RequestHead, connection: Int) {
        state.withLock { state in
            state.requests.append(RecordedRequest(
                sequence: state.requests.count, connection: connection, method: head.method,
                path: head.path, query: head.query, headers: head.headers))
            state.counts[head.path, default: 0] += 1
        }
    }

    func recordClientClose(path: String) {
        state.withLock { $0.clientCloses[path, default: 0] += 1 }
    }

    func file(_ name: String) -> ServedFile? { state.withLock { $0.files[name] } }

    func isGateOpen(_ name: String) -> Bool { state.withLock { $0.openGates.contains(name) } }
}
