#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`.
///
/// Why not `Synchronization.Mutex`: on Linux it is built on raw futex calls that ThreadSanitizer
/// cannot see, so every access it protects is reported as a race and real races drown in the
/// noise. A pthread mutex costs the same uncontended and is understood by the sanitizer.
/// ImageKernel and its plugins use this type for all locking; plugins may use it too.
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var storage: Value

    public init(_ value: Value) {
        storage = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Never call plugin or user code inside.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&storage)
    }

    /// A copy of the value.
    @inlinable
    public var value: Value { withLock { $0 } }
}
