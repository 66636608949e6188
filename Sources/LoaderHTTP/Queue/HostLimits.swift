import Foundation

/// Per-host politeness beside the global limit: at most
/// ``HTTPLoader/Configuration/maxConcurrentDownloadsPerHost`` transfers to one host at once, and
/// (with ``HTTPLoader/Configuration/adaptsPerHostRate``) a ``HostPacer`` per host. A transfer
/// whose host is busy waits in that host's own line ("parked"), so a slow or rate-limited host
/// never holds up the transfers of another. Confined to the driver thread.
struct HostLimits {
    /// `scheme://host:port`, so 127.0.0.1 and 127.0.0.2 (or two ports) are different hosts.
    typealias Key = String

    private struct Host {
        var running = 0
        var parked: [Transfer] = []
        var pacer = HostPacer()
        var isIdle: Bool { running == 0 && parked.isEmpty && pacer.isIdle }
    }

    private var hosts: [Key: Host] = [:]
    /// Hosts with parked transfers, in the order they first parked one.
    private var waitingHosts: [Key] = []
    private let perHost: Int
    private let adaptive: Bool
    private(set) var parkedCount = 0

    init(perHost: Int?, adaptive: Bool) {
        self.perHost = max(1, perHost ?? Int.max)
        self.adaptive = adaptive
    }

    static func key(for url: URL) -> Key {
        let scheme = url.scheme?.lowercased() ?? "http"
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// Whether a transfer to this host may start now.
    func mayStart(_ transfer: Transfer, at now: ContinuousClock.Instant) -> Bool {
        guard let host = hosts[transfer.hostKey] else { return true }
        return host.running < perHost && host.parked.isEmpty && (!adaptive || host.pacer.mayStart(at: now))
    }

    /// Puts a transfer in its host's line.
    mutating func park(_ transfer: Transfer) {
        let key = transfer.hostKey
        if hosts[key, default: Host()].parked.isEmpty { waitingHosts.append(key) }
        hosts[key, default: Host()].parked.append(transfer)
        parkedCount += 1
    }

    /// Whether a parked transfer's host may take it now.
    func hasStartable(at now: ContinuousClock.Instant) -> Bool {
        guard parkedCount > 0 else { return false }
        return waitingHosts.contains { key in
            guard let host = hosts[key] else { return false }
            return host.running < perHost && (!adaptive || host.pacer.mayStart(at: now))
        }
    }

    /// Takes the oldest parked transfer of a host that may start now.
    mutating func takeReady(at now: ContinuousClock.Instant) -> Transfer? {
        guard parkedCount > 0 else { return nil }
        for (index, key) in waitingHosts.enumerated() {
            guard var host = hosts[key], host.running < perHost, !adaptive || host.pacer.mayStart(at: now) else { continue }
            let transfer = host.parked.removeFirst()
            parkedCount -= 1
            if host.parked.isEmpty { waitingHosts.remove(at: index) }
            hosts[key] = host
            return transfer
        }
        return nil
    }

    /// Removes a parked transfer (its last caller left). Returns false when it was not parked.
    mutating func unpark(_ transfer: Transfer) -> Bool {
        let key = transfer.hostKey
        guard var host = hosts[key], let index = host.parked.firstIndex(where: { $0 === transfer }) else { return false }
        host.parked.remove(at: index)
        parkedCount -= 1
        if host.parked.isEmpty { waitingHosts.removeAll { $0 == key } }
        store(host, key)
        return true
    }

    mutating func removeAllParked() -> [Transfer] {
        let all = waitingHosts.flatMap { hosts[$0]?.parked ?? [] }
        for key in waitingHosts { hosts[key]?.parked = [] }
        waitingHosts = []
        parkedCount = 0
        hosts = hosts.filter { !$0.value.isIdle }
        return all
    }

    mutating func didStart(_ transfer: Transfer, at now: ContinuousClock.Instant) {
        let key = transfer.hostKey
        hosts[key, default: Host()].running += 1
        if adaptive { hosts[key]?.pacer.didStart(at: now) }
    }

    /// A running transfer left curl; `status` is the status it ended with (nil for none).
    mutating func didStop(_ transfer: Transfer, status: Int?, at now: ContinuousClock.Instant) {
        let key = transfer.hostKey
        guard var host = hosts[key] else { return }
        host.running = max(0, host.running - 1)
        if adaptive, let status {
            if status == 429 || status == 503 {
                host.pacer.refused(startedAt: transfer.startedAt, at: now)
            } else if (200...399).contains(status) {
                host.pacer.succeeded(at: now)
            }
        }
        store(host, key)
    }

    /// The earliest time a parked transfer waits for its host's pace, if any (it may be past:
    /// the driver then polls for the shortest time and starts it on its next turn).
    func nextPacedStart() -> ContinuousClock.Instant? {
        guard adaptive, parkedCount > 0 else { return nil }
        return waitingHosts.compactMap { key -> ContinuousClock.Instant? in
            guard let host = hosts[key], host.running < perHost else { return nil }
            return host.pacer.nextStartTime
        }.min()
    }

    /// Forgets hosts with nothing running, waiting or learnt, so a crawl over a million hosts
    /// keeps only the busy ones.
    private mutating func store(_ host: Host, _ key: Key) {
        if host.isIdle { hosts[key] = nil } else { hosts[key] = host }
    }
}
