import Foundation
import Synchronization

/// A value one thread publishes and another waits on, for the two stages of
/// ``PipelinedPlanarRender``: the waiter spins a while (yielding its core to anything runnable)
/// before it sleeps, and the publisher makes a system call only for a waiter that sleeps.
///
/// A render pipelines only when it runs alone, so the waiter's core has nothing else to do; and
/// on a virtual machine, waking a thread that sleeps on an idle core costs about 20 µs (an
/// interrupt to another virtual CPU: `perf bench sched pipe` takes 45 µs a round trip across
/// cores here, 4 µs on one core), which a band of rows pays twice.
final class SpinningSignal: Sendable {
    private let value = Atomic<Int>(0)
    private let sleeping = Atomic<Bool>(false)
    private let condition = NSCondition()

    /// How many times a waiter looks (yielding between looks, about a microsecond each when
    /// nothing else runs) before it sleeps: longer than a band of rows takes to decode.
    static let spins = 2000

    /// Makes `newValue` the value and wakes a sleeping waiter.
    func publish(_ newValue: Int) {
        value.store(newValue, ordering: .sequentiallyConsistent)
        // Sequentially consistent on both sides: either the waiter sees the new value before it
        // sleeps, or this sees it sleeping and signals under the lock, after it waits.
        if sleeping.load(ordering: .sequentiallyConsistent) {
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The value once `done` holds for it.
    func wait(until done: (Int) -> Bool) -> Int {
        for _ in 0..<Self.spins {
            let current = value.load(ordering: .acquiring)
            if done(current) { return current }
            sched_yield()
        }
        condition.lock()
        defer { condition.unlock() }
        sleeping.store(true, ordering: .sequentiallyConsistent)
        var current = value.load(ordering: .sequentiallyConsistent)
        while !done(current) {
            condition.wait()
            current = value.load(ordering: .sequentiallyConsistent)
        }
        sleeping.store(false, ordering: .sequentiallyConsistent)
        return current
    }
}
