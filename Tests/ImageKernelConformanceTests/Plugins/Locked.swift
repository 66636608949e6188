import Foundation

/// A value behind an `NSLock`, for state the test plugins share between threads.
///
/// Not `Synchronization.Mutex`: on Linux its futex waits are invisible to ThreadSanitizer, which
/// then reports false races on every value it guards.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Stores `newValue` and returns the old value.
    func exchange(_ newValue: Value) -> Value {
        withLock { old in
            defer { old = newValue }
            return old
        }
    }
}
