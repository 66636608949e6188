import Foundation
import ImageKernel

/// Cancels work that runs past its deadline, checked every ``tick`` by one shared task that runs
/// only while something is watched. A source load registers here instead of racing a timer task
/// of its own: no timer or timer task per request.
public final class DeadlineWatch: Sendable {
    private struct Entry {
        let deadline: ContinuousClock.Instant
        let cancel: @Sendable () -> Void
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var expired: Set<Int> = []
        var nextID = 0
        var ticking = false
    }

    /// How often deadlines are checked: a deadline is met within this much.
    public let tick: Duration
    private let state = Locked(State())

    public init(tick: Duration = .milliseconds(50)) {
        self.tick = tick
    }

    /// Watches until ``end(_:)``: once `limit` has passed, `cancel` runs (once, on the watch's task).
    public func start(_ limit: Duration, cancel: @escaping @Sendable () -> Void) -> Int {
        let (id, startTicking) = state.withLock { state -> (Int, Bool) in
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(deadline: .now + limit, cancel: cancel)
            defer { state.ticking = true }
            return (id, !state.ticking)
        }
        if startTicking { Task.detached(priority: .high) { await self.run() } }
        return id
    }

    /// Stops watching `id`; returns whether its deadline had passed (and `cancel` ran).
    @discardableResult
    public func end(_ id: Int) -> Bool {
        state.withLock { state in
            state.entries[id] = nil
            return state.expired.remove(id) != nil
        }
    }

    private func run() async {
        while true {
            try? await Task.sleep(for: tick)
            let now = ContinuousClock.now
            let due: [Entry]? = state.withLock { state in
                if state.entries.isEmpty {
                    state.ticking = false
                    return nil
                }
                var due: [Entry] = []
                for (id, entry) in state.entries where entry.deadline <= now {
                    due.append(entry)
                    state.entries[id] = nil
                    state.expired.insert(id)
                }
                return due
            }
            guard let due else { return }
            for entry in due { entry.cancel() }
        }
    }
}
