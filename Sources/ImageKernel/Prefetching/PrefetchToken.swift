import Foundation

/// One prefetch call; cancel it to stop its remaining loads and silence its callbacks.
public final class PrefetchToken: Sendable {
    /// Number of URLs in the call, −1 when a streamed sequence did not say.
    public let total: Int
    private let gate = CallbackGate()
    private let task = Locked<Task<Void, Never>?>(nil)
    private let tally = Locked<(finished: Int, skipped: Int)>((0, 0))

    /// Order of creation within its prefetcher.
    let sequence: UInt64

    init(total: Int, sequence: UInt64 = 0) {
        self.total = total
        self.sequence = sequence
    }

    /// URLs done so far (successes and failures) and failures among them.
    public var counts: (finished: Int, skipped: Int) { tally.withLock { $0 } }
    /// Whether ``cancel()`` was called before the prefetch completed.
    public var isCancelled: Bool { gate.isCancelled }
    /// Whether the prefetch completed or was cancelled.
    public var isFinished: Bool { gate.isClosed }

    /// Stops the remaining loads. No callback of this call runs after `cancel()` returns.
    public func cancel() {
        if gate.close(cancelled: true, {}) { task.withLock { $0?.cancel() } }
    }

    func attach(_ task: Task<Void, Never>) {
        self.task.withLock { $0 = task }
        if gate.isClosed { task.cancel() }
    }

    func record(success: Bool) -> (finished: Int, skipped: Int) {
        tally.withLock { tally in
            tally.finished += 1
            if !success { tally.skipped += 1 }
            return tally
        }
    }

    func deliver(_ callback: () -> Void) { gate.whileOpen(callback) }
    func complete(_ callback: () -> Void) { gate.close(cancelled: false, callback) }
}
