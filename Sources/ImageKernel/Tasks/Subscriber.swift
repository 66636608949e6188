import Foundation

/// One caller's stake in shared work: its events, its priority and its exactly-once outcome.
///
/// The outcome is delivered once — the shared result, the shared failure, or `cancelled` when the
/// caller leaves first — and no event reaches the caller after that. Events run while a recursive
/// lock is held, so once ``finish(_:)`` has returned on one thread no event runs on another; an
/// event handler may itself cancel its caller.
final class Subscriber<Value: Sendable, Event: Sendable>: @unchecked Sendable {
    typealias Outcome = Result<Value, ImageKernelError>

    let wantsEvents: Bool
    private let events: (@Sendable (Event) -> Void)?
    private let lock = NSRecursiveLock()
    private var priorityValue: LoadPriority
    private var taskPriorityValue: TaskPriority
    private var finished = false
    private var finalOutcome: Outcome?
    private var continuation: CheckedContinuation<Outcome, Never>?
    /// Set once the caller has joined a job: leaves the job (and tells it about priority changes).
    private var membership: Membership?

    struct Membership: Sendable {
        let leave: @Sendable () -> Void
        let reprioritize: @Sendable (LoadPriority) -> Void
    }

    init(priority: LoadPriority, taskPriority: TaskPriority = Task.currentPriority, events: (@Sendable (Event) -> Void)?) {
        self.priorityValue = priority
        self.taskPriorityValue = taskPriority
        self.events = events
        self.wantsEvents = events != nil
    }

    var priority: LoadPriority { locked { priorityValue } }
    var taskPriority: TaskPriority { locked { taskPriorityValue } }
    var isFinished: Bool { locked { finished } }
    /// The outcome, once the subscriber has finished.
    var outcome: Outcome? { locked { finalOutcome } }

    /// Changes the caller's priority; the job it belongs to recomputes its own.
    func setPriority(_ priority: LoadPriority) {
        let membership = locked { () -> Membership? in
            guard priorityValue != priority, !finished else { return nil }
            priorityValue = priority
            return self.membership
        }
        membership?.reprioritize(priority)
    }

    /// Delivers an event unless the outcome was delivered already.
    func emit(_ event: Event) {
        guard let events else { return }
        lock.lock()
        defer { lock.unlock() }
        if !finished { events(event) }
    }

    /// Stores the continuation the caller waits on. Returns false when the outcome came first
    /// (it is delivered at once).
    func install(_ continuation: CheckedContinuation<Outcome, Never>) -> Bool {
        let ready = locked { () -> Outcome? in
            if let finalOutcome { return finalOutcome }
            self.continuation = continuation
            return nil
        }
        guard let ready else { return true }
        continuation.resume(returning: ready)
        return false
    }

    /// Records the job this caller joined. Returns false when the caller finished already (it
    /// must leave at once).
    func join(_ membership: Membership) -> Bool {
        locked {
            guard !finished else { return false }
            self.membership = membership
            return true
        }
    }

    /// Delivers the outcome if none was delivered yet. Returns whether this call delivered it.
    @discardableResult
    func finish(_ result: Outcome) -> Bool {
        let waiting = locked { () -> (CheckedContinuation<Outcome, Never>?, Bool) in
            guard !finished else { return (nil, false) }
            finished = true
            finalOutcome = result
            let waiting = continuation
            continuation = nil
            return (waiting, true)
        }
        waiting.0?.resume(returning: result)
        return waiting.1
    }

    /// Completes the caller with `cancelled` and leaves the shared work, which stops when no
    /// caller is left.
    func cancel() {
        guard finish(.failure(.cancelled())) else { return }
        let membership = locked { self.membership }
        membership?.leave()
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
