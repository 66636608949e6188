import Foundation

/// A value behind a lock, for state that threads or tasks of one case share.
///
/// A pthread-backed `NSLock` rather than `Synchronization.Mutex`: on Linux `Mutex` waits in futex
/// calls that ThreadSanitizer cannot see, so TSan reports false races on whatever it guards.
/// People run these suites under TSan to check their own plugins; the suites' own state must not
/// add noise there.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
