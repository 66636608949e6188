import Foundation
import ImageKernel
import ImageProxyCore
import Testing

/// The shared deadline checker that cancels source loads past `--source-timeout`.
@Suite("Deadline watch")
struct DeadlineWatchTests {
    @Test func aPassedDeadlineCancelsOnceAndAnEndedOneNever() async throws {
        let watch = DeadlineWatch(tick: .milliseconds(10))
        let fired = Locked<[String]>([])
        let late = watch.start(.milliseconds(50)) { fired.withLock { $0.append("late") } }
        let early = watch.start(.seconds(30)) { fired.withLock { $0.append("early") } }
        #expect(watch.end(early) == false)
        let task = Task { try await Task.sleep(for: .seconds(30)) }
        let cancelled = watch.start(.milliseconds(30)) { task.cancel() }
        for _ in 0..<200 where fired.withLock({ $0.isEmpty }) || !task.isCancelled { try await Task.sleep(for: .milliseconds(10)) }
        #expect(task.isCancelled)
        #expect(watch.end(cancelled) == true)
        try await Task.sleep(for: .milliseconds(100))
        #expect(fired.withLock { $0 } == ["late"])
        #expect(watch.end(late) == true)
        #expect(watch.end(late) == false)  // ended once
        // The watch stops ticking when idle and starts again for the next deadline.
        let again = watch.start(.milliseconds(20)) { fired.withLock { $0.append("again") } }
        for _ in 0..<200 where fired.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(fired.withLock { $0 } == ["late", "again"])
        #expect(watch.end(again) == true)
    }
}
