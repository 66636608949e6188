import Foundation
import ImageKernel

/// One request rate and one concurrency limit per host, held in Redis for a whole fleet: N
/// workers on any number of machines together send a host no more than one polite client would,
/// and a long `Retry-After` that one of them is given pauses that host for all.
///
/// It follows the loader's own per-host pacing (LoaderHTTP's `adaptsPerHostRate`), with the state
/// in one Redis hash per host and every step in a Lua script on the server's clock:
/// - A host starts unpaced. A 429 or 503 sets a ceiling: the rate the whole fleet was served
///   in the last second less ``ceilingMargin``. Refusals of requests
///   started before that cut are ignored. The rate drops to ``backOff`` of the ceiling (a limiter
///   that just refused needs to drain), climbs back by ``fastIncrease`` per success to 90 % of it
///   and by ``slowIncrease`` to the ceiling, stays there for ``hold``, and only then probes past
///   it by ``probeIncrease`` per success (the host may allow more later; a refusal while probing
///   sets a new ceiling). A fleet keeps many requests in flight, so each overshoot costs it
///   several refusals: it holds just under what the host refused instead.
/// - Until its first refusal a host's requests in flight across the fleet start at one and
///   double each ``warmUpStep``: the first overflow of a rate limiter finds few requests in flight.
/// - Starts reserved before a cut (spaced at the old rate) are checked after their wait and
///   reserved again at the new rate, so requests admitted under the old rate do not overshoot.
///   Past ``unpacedAbove`` the host is unpaced again.
/// - ``acquire(host:)`` takes a lease (at most `perHost` requests in flight to the host across
///   the fleet; a full host is asked again every 10 ms), reserves the next start (one per
///   `1 / rate`, no bursts) and sleeps until it.
/// - A `Retry-After` of ``pauseThreshold`` or more pauses the host until then for every worker.
///   Shorter ones (rate limiters such as nginx's `limit_req` send `Retry-After: 1` with every
///   refusal) cut the rate as any refusal does and delay only the refused load's own retry.
/// - Fail-open: when Redis does not answer, ``acquire(host:)`` returns at once and reports are
///   dropped; the loads go on unpaced rather than stop.
public final class SharedHostPacer: Sendable {
    static let fastIncrease = 0.5
    static let slowIncrease = 0.1
    /// The rise per success past the ceiling, once ``hold`` has passed.
    static let probeIncrease = 0.03
    static let backOff = 0.85
    /// The ceiling's distance below the rate refused (8 %).
    static let ceilingMargin = 0.08
    /// Until a host first refuses, the fleet's requests in flight to it start at one and double
    /// each step (200 ms) up to `perHost`: a fleet that overflows a rate limiter unpaced has all
    /// of them refused at once.
    static let warmUpStep = Duration.milliseconds(200)
    /// The most times one start is reserved again after cuts.
    static let reReservations = 8
    static let minimumRate = 1.0
    static let unpacedAbove = 10_000.0
    /// The shortest `Retry-After` that pauses a host for the fleet (2 s).
    public static let pauseThreshold = Duration.seconds(2)

    /// A reserved start and a lease, to report the request's outcome with (which frees the lease).
    public struct Permit: Sendable {
        public let host: String
        /// When the request was allowed to start (server clock, µs); nil when Redis did not answer.
        let start: Int64?
        let token: String
    }

    /// What a host answered.
    public enum Outcome: Sendable {
        /// A success (any answer that is not a refusal: 2xx, 3xx, 404, bytes that are no image).
        case served
        /// A 429 or 503, with its `Retry-After` if any.
        case refused(retryAfter: Duration?)
        /// No answer that says anything about the host's rate (a timeout, a lost connection).
        case other
    }

    private let router: any CommandRouter
    private let prefix = "imagekernel:pace:"
    private let perHost: Int
    private let leaseTime: Duration
    private let tokens = Locked(0)
    private let owner = UUID().uuidString

    /// Pacing on the server or cluster of `configuration` (its timeout bounds every wait), under
    /// keys `imagekernel:pace:{HOST}`.
    /// - Parameters:
    ///   - perHost: Requests in flight to one host across every worker that uses the same
    ///     number (0: no limit). Each is a lease in Redis, freed by ``report(_:_:)``.
    ///   - leaseTime: How long a lease lasts if its worker never reports (it stopped): the
    ///     capacity a killed worker held comes back after it. Default 30 s, past the loader's timeout.
    ///   - hold: How long the fleet stays at the ceiling after a refusal before it probes past it
    ///     (default 5 s). Every worker on a host should use the same.
    public init(configuration: RedisCache.Configuration, perHost: Int = 0, leaseTime: Duration = .seconds(30), hold: Duration = .seconds(5)) {
        router = RedisCache.makeRouter(configuration)
        self.perHost = max(0, perHost)
        self.leaseTime = leaseTime
        self.hold = hold
    }

    /// How long the fleet stays at the ceiling before it probes past it (default 5 s).
    public let hold: Duration

    /// The key a URL is paced under: scheme, host and port, as the loader's per-host lines.
    public static func hostKey(for url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "http"
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// Waits until the fleet's pace lets one more request to `host` start.
    /// - Throws: ``ImageKernelError`` `cancelled` when the task is cancelled while waiting.
    /// While the host has `perHost` requests in flight, the lease is asked for again after this.
    static let leasePoll = Duration.milliseconds(10)

    public func acquire(host: String) async throws(ImageKernelError) -> Permit {
        let keys = keys(host)
        let token = "\(owner):\(tokens.withLock { $0 += 1; return $0 })"
        let arguments = [String(perHost), token, String(leaseTime.milliseconds * 1000), String(Self.warmUpStep.milliseconds * 1000)]
        while true {
            let reply = await router.run(eval(PolitenessScripts.acquire, keys: keys, arguments), key: keys[0], isRead: false)
            guard case .success(.array(let parts)) = reply, parts.count == 2, let wait = parts[0].integer, let start = parts[1].integer else {
                return Permit(host: host, start: nil, token: token)
            }
            do {
                if wait < 0 {
                    try await Task.sleep(for: Self.leasePoll)
                    continue
                }
                if wait > 0 { try await Task.sleep(for: .microseconds(wait)) }
            } catch {
                throw ImageKernelError(stage: .load, plugin: RedisCache.pluginName, code: .cancelled, message: "cancelled while waiting for \(host)'s pace")
            }
            let confirmed = wait > 0 ? try await confirm(host: host, start: start, reservedAt: start - wait) : start
            return Permit(host: host, start: Int64(confirmed), token: token)
        }
    }

    /// A start reserved at `reservedAt` and waited for, checked against the host's last cut: while
    /// a cut came after its reservation, it is reserved again and waited for. Returns the start.
    private func confirm(host: String, start: Int, reservedAt: Int) async throws(ImageKernelError) -> Int {
        let key = keys(host)[0]
        var (start, reservedAt) = (start, reservedAt)
        for _ in 0..<Self.reReservations {
            let reply = await router.run(eval(PolitenessScripts.confirm, keys: [key], [String(reservedAt)]), key: key, isRead: false)
            guard case .success(.array(let parts)) = reply, parts.count == 2, let wait = parts[0].integer, let again = parts[1].integer,
                  again > 0 else { break }
            do {
                if wait > 0 { try await Task.sleep(for: .microseconds(wait)) }
            } catch {
                throw ImageKernelError(stage: .load, plugin: RedisCache.pluginName, code: .cancelled, message: "cancelled while waiting for \(host)'s pace")
            }
            (start, reservedAt) = (again, again - wait)
        }
        return start
    }

    /// Reports how the host answered the request `permit` started. Returns the host's rate after
    /// it (nil: unpaced or no answer from Redis).
    @discardableResult
    public func report(_ permit: Permit, _ outcome: Outcome) async -> Double? {
        guard let start = permit.start else { return nil }
        let (name, pause): (String, Duration?) = switch outcome {
        case .served: ("ok", nil)
        case .refused(let retryAfter): ("refused", retryAfter.flatMap { $0 >= Self.pauseThreshold ? $0 : nil })
        case .other: ("other", nil)
        }
        let keys = keys(permit.host)
        let arguments = [name, String(start), String(pause?.milliseconds ?? 0), "\(Self.fastIncrease)", "\(Self.slowIncrease)",
                         "\(Self.backOff)", "\(Self.minimumRate)", "\(Self.unpacedAbove)", "\(Self.probeIncrease)", permit.token,
                         "\(Self.ceilingMargin)", String(hold.milliseconds * 1000)]
        // Tried again while Redis is away (a restart) for up to ``reportPersistence``: an
        // unreported lease would hold the host's capacity until it expires.
        let deadline = ContinuousClock.now + Self.reportPersistence
        while true {
            let reply = await router.run(eval(PolitenessScripts.report, keys: keys, arguments), key: keys[0], isRead: false)
            if case .failure = reply, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            guard case .success(.integer(let rate)) = reply, rate > 0 else { return nil }
            return Double(rate) / 1000
        }
    }

    /// How long a report is tried again while Redis does not answer (5 s).
    static let reportPersistence = Duration.seconds(5)

    /// The host's pacing hash and its leases, under one hash tag (one slot).
    private func keys(_ host: String) -> [Data] { [Data("\(prefix){\(host)}".utf8), Data("\(prefix){\(host)}:leases".utf8)] }

    private func eval(_ script: String, keys: [Data], _ arguments: [String]) -> RedisCommand {
        RedisCommand("EVAL", arguments: [Data(script.utf8), Data(String(keys.count).utf8)] + keys + arguments.map { Data($0.utf8) })
    }
}
