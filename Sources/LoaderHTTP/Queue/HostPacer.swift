/// One host's adaptive request rate: additive-increase, multiplicative-decrease on the host's own
/// answers, so a rate-limited origin sees few refusals and a healthy one none of the brakes.
///
/// A host starts unpaced. Its first 429 or 503 sets the rate to what the host really delivered
/// in the last second; a later refusal halves the rate (once per rate: refusals of requests sent
/// before the last cut say nothing about the new rate). Each success adds ``increasePerSuccess``
/// requests per second, so the rate doubles in about half a second of successes; past
/// ``unpacedAbove`` the host is unpaced again. Requests start at most one per `1 / rate`, with no
/// bursts.
struct HostPacer {
    static let increasePerSuccess = 2.0
    static let minimumRate = 1.0
    static let unpacedAbove = 10_000.0

    /// Requests per second; nil while unpaced.
    private(set) var rate: Double?
    private var nextStart: ContinuousClock.Instant?
    private var lastCut: ContinuousClock.Instant?
    /// Completion times of recent successes (the last second), for the first estimate.
    private var recentSuccesses: [ContinuousClock.Instant] = []

    var isIdle: Bool { rate == nil }

    func mayStart(at now: ContinuousClock.Instant) -> Bool {
        guard rate != nil, let nextStart else { return true }
        return now >= nextStart
    }

    /// When a paced host may start its next request; nil when it may start now or is unpaced.
    func nextStartTime(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard rate != nil, let nextStart, nextStart > now else { return nil }
        return nextStart
    }

    mutating func didStart(at now: ContinuousClock.Instant) {
        guard let rate else { return }
        let from = max(nextStart ?? now, now)
        nextStart = from + .nanoseconds(Int64(1_000_000_000 / rate))
    }

    mutating func succeeded(at now: ContinuousClock.Instant) {
        if var current = rate {
            current += Self.increasePerSuccess
            rate = current > Self.unpacedAbove ? nil : current
            if rate == nil { lastCut = nil }
        } else {
            recentSuccesses.append(now)
            if recentSuccesses.count > 64, let first = recentSuccesses.first, now - first > .seconds(1) {
                recentSuccesses.removeAll { now - $0 > .seconds(1) }
            }
        }
    }

    /// A 429 or 503 for a request started at `started`.
    mutating func refused(startedAt started: ContinuousClock.Instant, at now: ContinuousClock.Instant) {
        if let lastCut, started < lastCut { return }
        if let current = rate {
            rate = max(Self.minimumRate, current / 2)
        } else {
            let delivered = recentSuccesses.filter { now - $0 <= .seconds(1) }.count
            rate = max(Self.minimumRate, Double(delivered))
            recentSuccesses = []
        }
        lastCut = now
        if let rate { nextStart = now + .nanoseconds(Int64(1_000_000_000 / rate)) }
    }
}
