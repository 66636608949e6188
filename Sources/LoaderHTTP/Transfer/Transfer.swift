internal import CCurl
import Foundation
import ImageKernel

/// One HTTP transfer — an easy handle, the response as it arrives, and the tokens of the callers
/// waiting for it. Confined to the driver thread: only ``DriverLoop`` and curl's callbacks (which
/// run inside `curl_multi_perform` on that thread) touch it.
final class Transfer {
    enum Phase { case queued, running, finished }

    let spec: TransferSpec
    let configuration: HTTPLoader.Configuration
    /// The host whose limits this transfer counts against.
    let hostKey: HostLimits.Key
    /// When the transfer was last handed to curl, to tell refusals of old requests from new ones.
    var startedAt: ContinuousClock.Instant = .now
    var phase: Phase = .queued
    private(set) var tokens: [LoadToken] = []
    /// The highest priority among the callers that joined.
    private(set) var priority: LoadToken.Priority = .low

    /// The easy handle while running; also the key of the driver's running table.
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var resolveList: UnsafeMutablePointer<curl_slist>?
    /// The retain that curl's userdata pointer holds while the easy handle exists.
    var callbackRetain: Unmanaged<Transfer>?

    var body: BodyBuffer
    /// `Content-Length` of the final response, or −1 when unknown.
    var expected: Int64 = -1
    /// The final response head, after the response modifier; set when the body starts or the
    /// transfer ends, whichever comes first.
    var response: HTTPResponse?
    /// Why a callback stopped the transfer; takes precedence over curl's own result code.
    var abortError: ImageKernelError?
    /// When the last byte arrived (or the transfer started), for the idle timeout.
    var lastActivity: ContinuousClock.Instant = .now
    /// While resuming a cut body: the bytes held and the validator sent in `If-Range`.
    var resume: (offset: Int, validator: String)?
    var resumes = 0
    /// The head of the first response, which a 206 continues (the result reports it).
    var firstResponse: HTTPResponse?
    /// The most bytes reported, so progress never goes back when a body starts over.
    private var reported: Int64 = 0

    init(spec: TransferSpec, configuration: HTTPLoader.Configuration, buffers: BufferPool) {
        self.spec = spec
        self.configuration = configuration
        self.hostKey = HostLimits.key(for: spec.url)
        self.body = BodyBuffer(pool: buffers)
    }

    deinit {
        precondition(easy == nil && headerList == nil && resolveList == nil, "a transfer must release its curl handle before it goes away")
        body.release()
    }

    /// Each caller's current priority (it may change while the caller waits).
    private var tokenPriorities: [UInt64: LoadToken.Priority] = [:]

    /// Adds a caller. Returns the priority before the join, so a queued transfer can be moved.
    @discardableResult
    func add(_ token: LoadToken) -> LoadToken.Priority {
        let old = priority
        tokens.append(token)
        tokenPriorities[token.id] = token.priority
        if tokens.count == 1 || token.priority > priority { priority = token.priority }
        return old
    }

    /// Changes one caller's priority; the transfer's is the highest of its callers'. Returns the
    /// priority before the change, so a queued transfer can be moved.
    func setPriority(_ new: LoadToken.Priority, ofToken id: UInt64) -> LoadToken.Priority {
        let old = priority
        guard tokenPriorities[id] != nil else { return old }
        tokenPriorities[id] = new
        priority = tokenPriorities.values.max() ?? new
        return old
    }

    /// Removes a caller's token; returns whether callers remain.
    func removeToken(id: UInt64) -> Bool {
        tokens.removeAll { $0.id == id }
        tokenPriorities[id] = nil
        if let highest = tokenPriorities.values.max() { priority = highest }
        return !tokens.isEmpty
    }

    /// Completes every caller with the outcome and forgets them.
    func complete(_ outcome: Result<LoadResult, ImageKernelError>) {
        phase = .finished
        let waiting = tokens
        tokens = []
        for token in waiting { token.complete(outcome) }
    }

    /// Reports progress (and, to callers that asked, the new chunk) to every caller.
    func reportProgress(chunk: Data?) {
        let received = Int64(body.count)
        guard received > reported else { return }
        reported = received
        for token in tokens {
            token.report(LoadProgress(received: received, expected: expected, chunk: token.wantsChunks ? chunk : nil))
        }
    }
}
