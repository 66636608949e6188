internal import CCurl
import Foundation
import ImageKernel

/// The driver thread's state and loop: takes commands, starts queued transfers while slots are
/// free, drives curl, completes finished and idle transfers, then sleeps in `curl_multi_poll`
/// until curl has work or a command wakes it. Every curl call of a loader happens here.
final class DriverLoop {
    let multi: UnsafeMutableRawPointer
    let inbox: DriverInbox
    let configuration: HTTPLoader.Configuration
    var queue: PendingQueue<Transfer>
    /// Transfers that callers can still join, queued or running.
    var joinable: [TransferSpec: Transfer] = [:]
    var transferOfToken: [UInt64: Transfer] = [:]
    var running: [UnsafeMutableRawPointer: Transfer] = [:]
    /// Per-host limits and pacing; transfers whose host is busy wait here, not in ``queue``.
    var hosts: HostLimits
    private var cookieShare: UnsafeMutableRawPointer?
    private var handles: EasyHandlePool
    let buffers: BufferPool
    private let maxRunning: Int

    init(multi: MultiHandleAddress, inbox: DriverInbox, configuration: HTTPLoader.Configuration, buffers: BufferPool) {
        self.buffers = buffers
        self.multi = multi.pointer
        self.inbox = inbox
        self.configuration = configuration
        self.queue = PendingQueue(lifo: configuration.executionOrder == .lifo)
        self.hosts = configuration._limitsHostsInCurl
            ? HostLimits(perHost: nil, adaptive: false)
            : HostLimits(perHost: configuration.maxConcurrentDownloadsPerHost, adaptive: configuration.adaptsPerHostRate)
        self.maxRunning = max(1, configuration.maxConcurrentDownloads)
        self.handles = EasyHandlePool(capacity: min(64, maxRunning))
    }

    func run() {
        while true {
            let (commands, closed) = inbox.drain()
            for command in commands { handle(command) }
            if closed { break }
            startQueuedTransfers()
            var active: Int32 = 0
            _ = curl_multi_perform(multi, &active)
            collectFinishedTransfers()
            expireIdleTransfers()
            // A finished transfer may have freed a slot for a transfer parked in its host's line:
            // start it now rather than after the next wake-up (up to a second away).
            if running.count < maxRunning && (!queue.isEmpty || hosts.hasStartable(at: .now)) { continue }
            var ready: Int32 = 0
            _ = curl_multi_poll(multi, nil, 0, pollTimeout(), &ready)
        }
        tearDown()
    }

    // MARK: Starting and finishing

    private func startQueuedTransfers() {
        let now = ContinuousClock.now
        while running.count < maxRunning, let transfer = hosts.takeReady(at: now) ?? nextStartable(at: now) {
            do {
                let share = transfer.spec.handleCookies ? try sharedCookies() : nil
                guard let easy = handles.take() else { throw ImageKernelError.http(.internalError, "curl_easy_init failed") }
                do {
                    try transfer.adopt(easy, cookieShare: share)
                } catch {
                    handles.give(easy, usedCookies: true)
                    throw error
                }
                let added = curl_multi_add_handle(multi, easy)
                guard added == CURLM_OK else {
                    handles.give(easy, usedCookies: true)
                    _ = transfer.releaseEasyHandle()
                    throw ImageKernelError.http(.internalError, "curl_multi_add_handle failed: \(String(cString: curl_multi_strerror(added)))")
                }
                transfer.phase = .running
                transfer.startedAt = now
                running[easy] = transfer
                hosts.didStart(transfer, at: now)
            } catch {
                finish(transfer, .failure(ImageKernelError.wrap(error, stage: .load, plugin: HTTPLoader.pluginName)))
            }
        }
    }

    /// The next queued transfer whose host may take it now; the others wait in their host's line.
    private func nextStartable(at now: ContinuousClock.Instant) -> Transfer? {
        while let transfer = queue.pop() {
            if hosts.mayStart(transfer, at: now) { return transfer }
            hosts.park(transfer)
        }
        return nil
    }

    private func collectFinishedTransfers() {
        var easy: UnsafeMutableRawPointer?
        var code = CURLE_OK
        while CCurl_multi_next_done(multi, &easy, &code) == 1 {
            guard let handle = easy, let transfer = running[handle] else { continue }
            let outcome = transfer.outcome(for: code)
            stop(transfer)
            if case .failure(let error) = outcome, transfer.prepareResume(after: error) {
                queue.push(transfer, priority: transfer.priority)
                continue
            }
            finish(transfer, outcome)
        }
    }

    /// Fails running transfers that received nothing for `configuration.timeout`.
    private func expireIdleTransfers() {
        let now = ContinuousClock.now
        // Most turns nothing expired: look before building a list.
        guard running.values.contains(where: { now - $0.lastActivity >= configuration.timeout }) else { return }
        let expired = running.values.filter { now - $0.lastActivity >= configuration.timeout }
        for transfer in expired {
            stop(transfer)
            let error = ImageKernelError.http(.timeout, "no data for \(configuration.timeout) from \(transfer.spec.url.absoluteString)")
            if transfer.prepareResume(after: error) {
                queue.push(transfer, priority: transfer.priority)
                continue
            }
            finish(transfer, .failure(error))
        }
    }

    /// How long to sleep: until the nearest idle deadline, at most one second. curl shortens it
    /// further when its own timers need attention.
    private func pollTimeout() -> Int32 {
        let now = ContinuousClock.now
        var timeout: Int64 = 1000
        if let oldest = running.values.lazy.map(\.lastActivity).min() {
            timeout = min(timeout, milliseconds(oldest + configuration.timeout - now))
        }
        // A host waiting for its pace wakes the loop when it may start again.
        if running.count < maxRunning, let paced = hosts.nextPacedStart() {
            timeout = min(timeout, milliseconds(paced - now))
        }
        return Int32(clamping: timeout)
    }

    /// Removes a running transfer's handle from curl; an unfinished transfer's connection closes.
    func stop(_ transfer: Transfer) {
        guard let easy = transfer.easy else { return }
        running[easy] = nil
        hosts.didStop(transfer, status: transfer.response?.statusCode, at: .now)
        _ = curl_multi_remove_handle(multi, easy)
        if let handle = transfer.releaseEasyHandle() { handles.give(handle, usedCookies: transfer.spec.handleCookies) }
    }

    /// Completes every caller of a transfer and forgets it.
    func finish(_ transfer: Transfer, _ outcome: Result<LoadResult, ImageKernelError>) {
        if joinable[transfer.spec] === transfer { joinable[transfer.spec] = nil }
        for token in transfer.tokens { transferOfToken[token.id] = nil }
        transfer.complete(outcome)
    }

    private func sharedCookies() throws(ImageKernelError) -> UnsafeMutableRawPointer {
        if let cookieShare { return cookieShare }
        guard let share = curl_share_init() else { throw .http(.internalError, "curl_share_init failed") }
        let code = CCurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        guard code == CURLSHE_OK else {
            curl_share_cleanup(share)
            throw .http(.internalError, "curl could not share cookies")
        }
        cookieShare = share
        return share
    }

    private func tearDown() {
        cancelEverything(.http(.cancelled, "the loader was shut down"))
        handles.removeAll()
        if let cookieShare { curl_share_cleanup(cookieShare) }
        cookieShare = nil
        curl_multi_cleanup(multi)
    }
}
