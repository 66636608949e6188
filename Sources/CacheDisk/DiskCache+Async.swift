import Dispatch
import Foundation
import ImageKernel

/// Async forms of the methods that may wait for a scan or a trim. Each runs on the cache's
/// maintenance queue (a dispatch queue of its own, not the cooperative pool) and resumes the
/// calling task when done, so awaiting one never holds a thread of Swift concurrency's pool.
/// They are not cancellable: a cancelled task still gets the answer once the work is done.
extension DiskCache {
    /// ``count()`` without blocking: the number of entry files in the cache directory.
    public func countAsync() async -> Int {
        await onMaintenanceQueue { self.freshIndexCount() }
    }

    /// ``totalSize()`` without blocking: the total size in bytes of the entry files.
    public func totalSizeAsync() async -> Int {
        await onMaintenanceQueue { self.freshIndexTotalSize() }
    }

    /// ``clean()`` without blocking: removes expired entries, then the oldest until the total is
    /// at most half of ``Configuration/maxSize`` if it is over it, and old temporary files.
    @discardableResult
    public func cleanAsync() async -> CleanResult {
        await onMaintenanceQueue { self.maintain(full: true).result }
    }

    /// ``waitUntilIdle()`` without blocking: returns when the index is built and every trim
    /// started so far has finished, with this process's size changes published to the others.
    public func waitUntilIdleAsync() async {
        await onMaintenanceQueue { self.settle() }
    }

    /// Runs `body` on the maintenance queue, after the jobs queued before it, and suspends the
    /// calling task until it returns. `body` must not call `maintenance.sync`.
    func onMaintenanceQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            maintenance.async { continuation.resume(returning: body()) }
        }
    }
}
