import Foundation

/// Fixtures for bulk-loading tests and benchmarks: many distinct images, and the nginx lines of a
/// rate-limited origin.
public enum BulkOrigin {
    /// `count` distinct JPEGs of about `size` bytes each: `template` with a comment segment
    /// (`FFFE`) after its SOI that holds the image's number and filler. They decode as the
    /// template does; their bytes (and hashes) all differ.
    public static func distinctJPEGs(from template: Data, count: Int, size: Int = 50_000) -> [(name: String, data: Data)] {
        let filler = max(16, min(65_000, size - template.count))
        return (0..<count).map { index in
            var comment = Data("image \(index) ".utf8)
            comment.append(Data(repeating: UInt8(ascii: "a") + UInt8(index % 26), count: max(0, filler - comment.count)))
            var data = Data(template.prefix(2))
            data.append(contentsOf: [0xFF, 0xFE, UInt8((comment.count + 2) >> 8), UInt8((comment.count + 2) & 0xFF)])
            data.append(comment)
            data.append(template.dropFirst(2))
            return (String(format: "img%05d.jpg", index), data)
        }
    }

    /// nginx directives for an origin that allows `rate` requests a second with a burst of
    /// `burst` (`nodelay`) and refuses the excess with `429` and `Retry-After: retryAfter`.
    /// Pass `http` and `locations` to ``NginxServer``.
    public static func rateLimited(rate: Int = 200, burst: Int = 20, retryAfter: Int = 1) -> (http: String, locations: String) {
        ("limit_req_zone $server_addr zone=bulk:1m rate=\(rate)r/s;",
         """
         location / {
                     limit_req zone=bulk burst=\(burst) nodelay;
                     limit_req_status 429;
                     add_header Retry-After \(retryAfter) always;
                 }
         """)
    }

    /// nginx directives that allow `connections` requests at once per server address and refuse
    /// more with `503`; each response is sent at `bytesPerSecond` (nginx `limit_rate`), so that
    /// requests last long enough to overlap.
    public static func connectionLimited(_ connections: Int = 2, bytesPerSecond: String = "500k") -> (http: String, locations: String) {
        ("limit_conn_zone $server_addr zone=perhost:1m;",
         """
         location / {
                     limit_conn perhost \(connections);
                     limit_conn_status 503;
                     limit_rate \(bytesPerSecond);
                 }
         """)
    }
}
