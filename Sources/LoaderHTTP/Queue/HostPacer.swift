/// One host's adaptive request rate, set by the host's own answers so that a rate-limited origin
/// sees few refusals and a healthy one no brakes at all.
///
/// A host starts unpaced. On a 429 or 503 the rate becomes a little below what the host really
/// delivered in the last second (over at least ``firstWindow`` when the host is newer than a
/// second): that is the origin's own rate, measured, and refusals of requests sent before the cut
/// are ignored. Each success then raises the rate: by ``fastIncrease`` per second while it is
/// below 90 % of the delivered rate at the last refusal, by ``slowIncrease`` above (probing near
/// the limit, so refusals stay rare). Past ``unpacedAbove`` the host is unpaced again. Requests
/// start at most one per `1 / rate`, without bursts.
struct HostPacer {
    static let fastIncrease = 2.0
    static let slowIncrease = 0.1
    /// The cut: this share of the delivered rate.
    static let backOff = 0.85
    static let minimumRate = 1.0
    static let unpacedAbove = 10_000.0
    static let firstWindow = Duration.milliseconds(100)

    /// Requests per second; nil while unpaced.
    private(set) var rate: Double?
    private var nextStart: ContinuousClock.Instant?
    private var lastCut: ContinuousClock.Instant?
    /// The delivered rate when the host last refused a request.
    private var refusedAt: Double = .infinity
    private var firstStart: ContinuousClock.Instant?
    private var delivered = SlidingCount()

    var isIdle: Bool { rate == nil }

    func mayStart(at now: ContinuousClock.Instant) -> Bool {
        guard rate != nil, let nextStart else { return true }
        return now >= nextStart
    }

    /// When a paced host may start its next request (possibly already past); nil when unpaced.
    var nextStartTime: ContinuousClock.Instant? {
        guard rate != nil else { return nil }
        return nextStart
    }

    mutating func didStart(at now: ContinuousClock.Instant) {
        if firstStart == nil { firstStart = now }
        guard let rate else { return }
        nextStart = max(nextStart ?? now, now) + Self.interval(rate)
    }

    mutating func succeeded(at now: ContinuousClock.Instant) {
        delivered.add(at: now)
        guard var current = rate else { return }
        current += current < refusedAt * 0.9 ? Self.fastIncrease : Self.slowIncrease
        rate = current > Self.unpacedAbove ? nil : current
        if rate == nil { (lastCut, refusedAt) = (nil, .infinity) }
    }

    /// A 429 or 503 for a request started at `started`.
    mutating func refused(startedAt started: ContinuousClock.Instant, at now: ContinuousClock.Instant) {
        if let lastCut, started < lastCut { return }
        let window = min(.seconds(1), max(Self.firstWindow, now - (firstStart ?? now)))
        let measured = Double(delivered.count(at: now)) / (Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18)
        // The first refusal may come before the host had time to show its rate: keep probing fast.
        refusedAt = rate == nil ? .infinity : measured
        let target = max(Self.minimumRate, measured * Self.backOff)
        rate = min(rate ?? .infinity, target)
        lastCut = now
        nextStart = now + Self.interval(rate ?? Self.minimumRate)
    }

    private static func interval(_ rate: Double) -> Duration { .nanoseconds(Int64(1_000_000_000 / rate)) }
}

/// Events in the last second, in ten 100 ms buckets: constant memory whatever the rate.
struct SlidingCount {
    private var buckets = [Int](repeating: 0, count: 10)
    private var newest: Int64?

    mutating func add(at now: ContinuousClock.Instant) {
        roll(to: Self.index(now))
        buckets[Int(Self.index(now) % 10)] += 1
    }

    mutating func count(at now: ContinuousClock.Instant) -> Int {
        roll(to: Self.index(now))
        return buckets.reduce(0, +)
    }

    private mutating func roll(to index: Int64) {
        guard let newest else {
            self.newest = index
            return
        }
        guard index > newest else { return }
        if index - newest >= 10 {
            buckets = [Int](repeating: 0, count: 10)
        } else {
            for step in (newest + 1)...index { buckets[Int(step % 10)] = 0 }
        }
        self.newest = index
    }

    /// The 100 ms slot of an instant, counted from a fixed origin.
    private static func index(_ now: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = origin.duration(to: now).components
        return seconds * 10 + attoseconds / 100_000_000_000_000_000
    }

    private static let origin = ContinuousClock.Instant.now
}
