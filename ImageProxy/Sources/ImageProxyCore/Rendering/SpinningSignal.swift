import Foundation
import Synchronization

/// A value one thread publishes and another waits on, for the two stages of
/// ``PipelinedPlanarRender``: the waiter spins a short while (yielding its core to anything
/// runnable) before it sleeps, and the publisher makes a system call only for a waiter that sleeps.
///
/// On a virtual machine, waking a thread that sleeps on an idle core costs about 20 µs (an
/// interrupt to another virtual CPU: `perf bench sched pipe` takes 45 µs a round trip across
/// cores here, 4 µs on one core). Spinning longer than a wake-up costs is CPU thrown away: the
/// waiter spins for about that long (``spinLimit``) and then sleeps, so a wait never burns more
/// than twice what the best choice in hindsight would have (the classic spin-then-block rule).
/// Spinning until the value came (2000 yields, longer than a whole decode) made a render alone
/// cost the CPU of its decode twice over: the second thread spun through it.
final class SpinningSignal: Sendable {
    private let value = Atomic<Int>(0)
    private let sleeping = Atomic<Bool>(false)
    private let condition = NSCondition()

    /// How long a waiter spins before it sleeps: about two wake-ups' cost on the VMs measured.
    /// `IMAGE_PROXY_PIPELINE_SPIN_US` (microseconds, 0 ... 10000) overrides it, for benchmarks.
    static let spinLimit: Duration = {
        if let text = ProcessInfo.processInfo.environment["IMAGE_PROXY_PIPELINE_SPIN_US"], let micros = Int(text), (0...10_000).contains(micros) {
            return .microseconds(micros)
        }
        return .microseconds(40)
    }()

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
        let current = value.load(ordering: .acquiring)
        if done(current) { return current }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: Self.spinLimit)
        repeat {
            sched_yield()
            let current = value.load(ordering: .acquiring)
            if done(current) { return current }
        } while clock.now < deadline
        condition.lock()
        defer { condition.unlock() }
        sleeping.store(true, ordering: .sequentiallyConsistent)
        var latest = value.load(ordering: .sequentiallyConsistent)
        while !done(latest) {
            condition.wait()
            latest = value.load(ordering: .sequentiallyConsistent)
        }
        sleeping.store(false, ordering: .sequentiallyConsistent)
        return latest
    }
}
