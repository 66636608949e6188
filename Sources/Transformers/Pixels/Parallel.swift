import Dispatch
import Foundation

/// Splits row work across cores for images large enough to pay for it.
enum Parallel {
    /// Work below this many sample-operations runs on the calling thread.
    static let minimumWork = 1 << 18

    /// How many threads to use for `work` operations over `rows` rows, at most `limit` (0: every
    /// core) and at most ``TransformThreads/limit`` when the caller's scope sets one.
    static func threads(rows: Int, work: Int, limit: Int) -> Int {
        guard work >= minimumWork, rows > 1 else { return 1 }
        var cores = limit > 0 ? limit : ProcessInfo.processInfo.activeProcessorCount
        if let scoped = TransformThreads.limit, scoped > 0 { cores = min(cores, scoped) }
        return max(1, min(cores, rows))
    }

    /// Calls `body` with contiguous slices of `0..<rows`, `slicesPerThread` per thread (a few keep
    /// both cores busy when one is interrupted), and returns when all are done.
    static func forEachSlice(rows: Int, threads: Int, slicesPerThread: Int = 4, _ body: (Range<Int>) -> Void) {
        guard threads > 1 else {
            body(0..<rows)
            return
        }
        let slices = min(rows, threads * max(1, slicesPerThread))
        // Each slice touches its own rows only; the box carries `body` into Dispatch's
        // @Sendable closure, and concurrentPerform returns only when every slice is done.
        withoutActuallyEscaping(body) { body in
            let box = SliceBody(run: body)
            DispatchQueue.concurrentPerform(iterations: slices) { slice in
                box.run((slice * rows / slices)..<((slice + 1) * rows / slices))
            }
        }
    }
}

/// The row work of one ``Parallel/forEachSlice(rows:threads:_:)`` call; callers write disjoint rows.
private struct SliceBody: @unchecked Sendable {
    let run: (Range<Int>) -> Void
}
