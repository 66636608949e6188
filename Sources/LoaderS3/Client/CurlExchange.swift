internal import CCurl
import Foundation
import ImageKernel

/// One HTTP exchange with a body in and out, on a blocking curl easy handle run off the caller's
/// task: PUT, DELETE, HEAD and small GETs (credential endpoints, bucket operations, the cache).
/// Object downloads go through ``S3Loader``'s ``LoaderHTTP/HTTPLoader`` instead.
struct CurlExchange: Sendable {
    struct Response: Sendable {
        var status: Int
        /// Names lower-cased.
        var headers: [String: String]
        var body: Data
    }

    /// Idle easy handles, kept so connections are reused (curl keeps a handle's connection cache).
    private let pool: HandlePool
    private let queue = DispatchQueue(label: "LoaderS3.CurlExchange", attributes: .concurrent)

    init(maxIdleHandles: Int = 8) { pool = HandlePool(limit: maxIdleHandles) }

    /// Performs the exchange; fails with a transport error (`timeout`, `cannotConnect`, …) or
    /// `cancelled`, never with a status: statuses are the caller's to judge.
    func perform(
        method: String, url: URL, headers: [String: String], body: Data? = nil, timeout: Duration, maxBody: Int = 16 << 20
    ) async throws(ImageKernelError) -> Response {
        try ImageKernelError.checkCancellation(.load, plugin: S3Loader.pluginName)
        let state = ExchangeState(maxBody: maxBody)
        let pool = self.pool
        let result: Result<Response, ImageKernelError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async {
                    continuation.resume(returning: Self.run(
                        pool: pool, state: state, method: method, url: url, headers: headers, body: body, timeout: timeout))
                }
            }
        } onCancel: {
            state.cancelled.withLock { $0 = true }
        }
        return try result.get()
    }

    private static func run(
        pool: HandlePool, state: ExchangeState, method: String, url: URL, headers: [String: String], body: Data?, timeout: Duration
    ) -> Result<Response, ImageKernelError> {
        guard let easy = pool.take() else { return .failure(.s3(.internalError, "curl_easy_init failed")) }
        var list: UnsafeMutablePointer<curl_slist>?
        defer {
            curl_slist_free_all(list)
            pool.give(easy)
        }
        let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        _ = CCurl_easy_setopt_string(easy, CURLOPT_URL, url.absoluteString)
        _ = CCurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(1, milliseconds))
        _ = CCurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, milliseconds))
        _ = CCurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = CCurl_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1)
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { list = curl_slist_append(list, "\(name): \(value)") }
        // curl would add `Expect: 100-continue` to uploads, costing a round trip.
        list = curl_slist_append(list, "Expect:")
        _ = CCurl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, list)
        let userdata = Unmanaged.passUnretained(state).toOpaque()
        _ = CCurl_easy_setopt_write_function(easy, { buffer, size, count, userdata in
            let state = Unmanaged<ExchangeState>.fromOpaque(userdata!).takeUnretainedValue()
            return state.append(body: UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : 0
        }, userdata)
        _ = CCurl_easy_setopt_header_function(easy, { buffer, size, count, userdata in
            let state = Unmanaged<ExchangeState>.fromOpaque(userdata!).takeUnretainedValue()
            return state.append(header: UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : 0
        }, userdata)
        if method == "HEAD" {
            _ = CCurl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        } else {
            _ = CCurl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)
        }
        let code: CURLcode = (body ?? Data()).withUnsafeBytes { bytes in
            if body != nil {
                _ = CCurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                _ = CCurl_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
            }
            return curl_easy_perform(easy)
        }
        if state.cancelled.withLock({ $0 }) { return .failure(.cancelled(.load, plugin: S3Loader.pluginName)) }
        guard code == CURLE_OK else { return .failure(Self.transportError(code)) }
        var status = 0
        _ = CCurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(Response(status: status, headers: state.headers(), body: state.body))
    }

    private static func transportError(_ code: CURLcode) -> ImageKernelError {
        let detail = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .s3(.timeout, "the store did not answer in time (\(detail))")
        case CURLE_COULDNT_RESOLVE_HOST: return .s3(.dnsFailure, "the host name could not be resolved (\(detail))")
        case CURLE_COULDNT_CONNECT: return .s3(.cannotConnect, "no connection could be made (\(detail))")
        case CURLE_WRITE_ERROR: return .s3(.tooLarge, "the answer was refused: too large or cancelled (\(detail))")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return .s3(.connectionLost, "the connection broke (\(detail))")
        default: return .s3(.ioError, "the exchange failed (curl \(code.rawValue): \(detail))")
        }
    }
}

/// What one exchange received; written by curl's callbacks on the exchange's thread only.
private final class ExchangeState: @unchecked Sendable {
    let maxBody: Int
    let cancelled = Locked(false)
    var body = Data()
    private var headerLines: [String] = []

    init(maxBody: Int) { self.maxBody = maxBody }

    func append(body bytes: UnsafeRawBufferPointer) -> Bool {
        guard !cancelled.withLock({ $0 }), body.count + bytes.count <= maxBody else { return false }
        body.append(contentsOf: bytes)
        return true
    }

    func append(header bytes: UnsafeRawBufferPointer) -> Bool {
        guard !cancelled.withLock({ $0 }) else { return false }
        let line = String(decoding: bytes, as: UTF8.self)
        // A new status line (after a 100 Continue or a redirect) starts a new header block.
        if line.hasPrefix("HTTP/") { headerLines.removeAll() } else { headerLines.append(line) }
        return true
    }

    func headers() -> [String: String] {
        var headers: [String: String] = [:]
        for line in headerLines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return headers
    }
}

/// Easy handles waiting for their next exchange.
private final class HandlePool: @unchecked Sendable {
    // @unchecked: `idle` holds raw handles, only touched under the lock.
    private let idle = Locked<[UnsafeMutableRawPointer]>([])
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
        _ = CCurl_global_init()
    }

    deinit { for handle in idle.withLock({ $0 }) { curl_easy_cleanup(handle) } }

    func take() -> UnsafeMutableRawPointer? {
        if let handle = idle.withLock({ $0.popLast() }) { return handle }
        return curl_easy_init()
    }

    func give(_ handle: UnsafeMutableRawPointer) {
        curl_easy_reset(handle)
        let kept = idle.withLock { handles -> Bool in
            guard handles.count < limit else { return false }
            handles.append(handle)
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }
}
