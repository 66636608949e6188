import Foundation
import ImageKernel

extension HTTPLoader {
    /// The order in which queued downloads start.
    public enum ExecutionOrder: Sendable, Hashable {
        /// First queued, first started.
        case fifo
        /// Last queued, first started (the newest request is usually the one on screen).
        case lifo
    }

    /// A user name and password sent with HTTP Basic authentication.
    public struct Credentials: Sendable, Hashable {
        public var user: String
        public var password: String

        /// Credentials for Basic authentication.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    /// Everything an ``HTTPLoader`` does that callers may want to change. Fixed when the loader is
    /// created.
    public struct Configuration: Sendable {
        /// At most this many transfers run at once; the others wait in the loader's queue.
        public var maxConcurrentDownloads: Int = 6
        /// At most this many transfers to one host (scheme, name and port) run at once; nil for
        /// no limit beside ``maxConcurrentDownloads``. A host at its limit never holds up others.
        public var maxConcurrentDownloadsPerHost: Int? = nil
        /// Paces each host by its own answers: a 429 or 503 lowers that host's request rate, and
        /// successes raise it back until the host is unpaced (AIMD; see the loader's
        /// documentation). Other hosts are not affected.
        public var adaptsPerHostRate: Bool = true
        /// Not API (hidden by its underscore): enforces ``maxConcurrentDownloadsPerHost`` with libcurl's `CURLMOPT_MAX_HOST_CONNECTIONS`
        /// instead of the loader's own per-host lines (and without pacing). Only for the benchmark
        /// that compares the two: curl queues inside the multi handle, where a busy host's waiting
        /// transfers hold slots of ``maxConcurrentDownloads`` that other hosts could use.
        public var _limitsHostsInCurl = false
        /// Which queued download starts next among those of the same priority.
        public var executionOrder: ExecutionOrder = .fifo
        /// A transfer fails with `timeout` when no byte arrived for this long (connecting included).
        public var timeout: Duration = .seconds(15)
        /// Headers sent with every request. Request and context headers override them by name
        /// (case-insensitively); an empty value removes a header.
        public var headers: [String: String] = ["Accept": "image/*,*/*;q=0.8"]
        /// The `User-Agent` header, unless ``headers`` or the request sets one.
        public var userAgent: String = HTTPLoader.defaultUserAgent
        /// Called for every load with the URL and the merged headers; returns the headers to send.
        /// Runs on the calling task, before coalescing.
        public var headersFilter: (@Sendable (URL, [String: String]) -> [String: String])?
        /// Changes (or refuses) each request before it is sent. Runs on the calling task.
        public var requestModifier: (any HTTPRequestModifier)?
        /// Changes (or refuses) each response when its headers arrived. Runs on the loader's
        /// driver thread: keep it short and do not block.
        public var responseModifier: (any HTTPResponseModifier)?
        /// Changes (decrypts, unwraps) or refuses each successful response's body, once per
        /// transfer, on the driver thread; see ``HTTPResponseBodyModifier``. Turns off progressive
        /// chunks.
        public var responseBodyModifier: (any HTTPResponseBodyModifier)?
        /// Credentials for HTTP Basic authentication. They are only sent to the host of the
        /// request, never to a host a redirect leads to.
        public var credentials: Credentials?
        /// Redirects followed before failing with `redirect`.
        public var maxRedirects: Int = 10
        /// Whether a redirect from `https` to plain `http` is followed (refused by default).
        public var allowInsecureRedirects: Bool = false
        /// Bodies larger than this fail with `tooLarge`; the transfer stops as soon as the size
        /// is known (from `Content-Length`) or exceeded.
        public var maxBodySize: Int64 = 64 << 20
        /// Statuses that count as success. Others fail with `httpStatus` carrying the status;
        /// a 304 answering a conditional request is reported as not modified instead.
        public var acceptableStatusCodes: Set<Int> = Set(200...299)
        /// Offer HTTP/2 on TLS connections and multiplex transfers to the same host on one connection.
        public var allowsHTTP2: Bool = true

        /// The defaults listed on each property.
        public init() {}
    }

    /// `ImageKernel/1 libcurl/<version>`.
    public static let defaultUserAgent: String = "ImageKernel/1 libcurl/\(CurlRuntime.version)"
}
