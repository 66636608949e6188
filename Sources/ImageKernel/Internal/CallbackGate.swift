import Foundation

/// Delivers callbacks until it is closed, and closes exactly once.
///
/// Callbacks run while a recursive lock is held, so when ``close(cancelled:_:)`` returns on one
/// thread no callback is running or will run on another; a callback may itself close the gate.
final class CallbackGate: @unchecked Sendable {
    // NSRecursiveLock: a callback that cancels its own operation re-enters on the same thread.
    private let lock = NSRecursiveLock()
    private var closed = false
    private var cancelled = false

    var isClosed: Bool { lock.lock(); defer { lock.unlock() }; return closed }
    var isCancelled: Bool { lock.lock(); defer { lock.unlock() }; return cancelled }

    /// Runs `body` if the gate is still open.
    func whileOpen(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        if !closed { body() }
    }

    /// Closes the gate and runs `final` if it was open. Returns whether it was open.
    @discardableResult
    func close(cancelled: Bool, _ final: () -> Void) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return false }
        closed = true
        self.cancelled = cancelled
        final()
        return true
    }
}
