import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Routes that break the protocol in ways the ordinary routes do not (the fault soak uses them):
/// - `/wrong-length/<name>?by=N` — announces the file's length plus N (N may be negative), sends
///   the whole file, and keeps the connection (a short announcement leaves stray bytes for the
///   next answer; a long one leaves the client waiting until it gives up).
/// - `/huge-header/<name>` — a single 1 MiB header line, then the file.
/// - `/reset/<name>` — announces the file, sends half, and resets the connection (RST, not FIN).
/// - `/raw/<name>` — the file's bytes are the whole answer (status line and headers included),
///   then the connection closes.
extension Connection {
    func faultRoute(_ parts: [String], _ request: RequestHead) -> Next? {
        guard parts.count == 2 else { return nil }
        switch parts[0] {
        case "wrong-length":
            guard let file = server.file(parts[1]) else { return nil }
            let by = request.query["by"].flatMap(Int.init) ?? 1
            guard socket.send(head(200, [("Content-Length", "\(max(0, file.data.count + by))")])), socket.send(file.data) else {
                return .close
            }
            return by < 0 ? .keepAlive : .close
        case "huge-header":
            guard let file = server.file(parts[1]) else { return nil }
            let padding = String(repeating: "a", count: 1 << 20)
            return respond(200, headers: [("X-Padding", padding), ("Content-Type", "application/octet-stream")], body: file.data)
        case "raw":
            guard let file = server.file(parts[1]) else { return nil }
            _ = socket.send(file.data)
            return .close
        case "reset":
            guard let file = server.file(parts[1]) else { return nil }
            _ = socket.send(head(200, [("Content-Length", "\(file.data.count)")]))
            _ = socket.send(Data(file.data.prefix(file.data.count / 2)))
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(socket.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            return .close
        default:
            return nil
        }
    }

    /// `/s3-region/<region>/<name>`: see ``HTTPTestServer``.
    func s3Region(_ region: String, file name: String, _ request: RequestHead) -> Next {
        if request.headers["authorization"]?.contains("/\(region)/s3/aws4_request") == true {
            guard let file = server.file(name) else { return respond(404, text: "no file \(name)\n") }
            return respond(200, headers: [("Content-Type", "application/octet-stream")], body: file.data)
        }
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>PermanentRedirect</Code><Message>The bucket is in another region.</Message></Error>"
        return respond(301, headers: [("Content-Type", "application/xml"), ("x-amz-bucket-region", region)], body: Data(xml.utf8))
    }

    /// `/latest/…`: IMDSv2, see ``HTTPTestServer``.
    func instanceMetadata(_ parts: [String], _ request: RequestHead) -> Next {
        let token = "ik-imds-token"
        if parts == ["latest", "api", "token"] {
            guard request.method == "PUT", request.headers["x-aws-ec2-metadata-token-ttl-seconds"] != nil else { return respond(400, text: "bad token request\n") }
            return respond(200, text: token)
        }
        guard request.headers["x-aws-ec2-metadata-token"] == token else { return respond(401, text: "no token\n") }
        switch Array(parts.dropFirst(2)) {
        case ["iam", "security-credentials"]: return respond(200, text: "ik-role\n")
        case ["iam", "security-credentials", "ik-role"]:
            guard let file = server.file("imds-credentials") else { return respond(404, text: "no credentials\n") }
            return respond(200, headers: [("Content-Type", "application/json")], body: file.data)
        default: return respond(404, text: "no metadata \(request.path)\n")
        }
    }
}
