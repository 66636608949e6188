import Foundation

/// Runs one piece of async work per key for every caller that asks for that key while it runs
/// (DESIGN.md rule 9; Nuke's task coalescing).
///
/// - Each caller is a ``Subscriber``: it gets the work's events from the moment it joins (plus the
///   *sticky* events sent before, replayed), and exactly one outcome.
/// - A caller whose task is cancelled, or whose subscriber is cancelled, leaves at once with
///   `cancelled`; when the last caller leaves, the work's task is cancelled and the key is free for
///   new work. A caller that joins after that starts new work.
/// - The work runs at the highest priority of the callers still waiting (``LoadPriorityHandle``),
///   and its Swift task is escalated when a caller of higher task priority joins.
/// - A failure reaches every caller.
final class SharedWork<Key: Hashable & Sendable, Value: Sendable, Event: Sendable>: Sendable {
    typealias Work = @Sendable (Job) async throws -> Value

    /// What the work sees of its job: the live priority and a way to send events.
    struct Job: Sendable {
        fileprivate let pool: SharedWork
        fileprivate let key: Key
        fileprivate let generation: UInt64
        /// The highest priority of the callers still waiting.
        let priority: LoadPriorityHandle

        /// Sends an event to every caller; a sticky event is also replayed to callers joining later.
        func emit(_ event: Event, sticky: Bool = false) {
            for subscriber in pool.listeners(key: key, generation: generation, sticky: sticky ? event : nil) {
                subscriber.emit(event)
            }
        }
    }

    private struct State {
        var nextGeneration: UInt64 = 0
        var jobs: [Key: JobState] = [:]
    }

    /// One running job. A class, so joining mutates it in place (a struct in the dictionary would
    /// copy its caller table on every join: quadratic in a thundering herd). Guarded by the pool's
    /// lock.
    private final class JobState {
        let generation: UInt64
        let priority: LoadPriorityHandle
        /// Callers with the priority each asked for (kept here, not read from the subscriber, so the
        /// pool never takes a subscriber's lock while holding its own).
        private(set) var subscribers: [ObjectIdentifier: (subscriber: Subscriber<Value, Event>, priority: LoadPriority)] = [:]
        /// Callers per priority level, so the highest is found in constant time.
        private var priorityCounts = [Int](repeating: 0, count: LoadPriority.allCases.count)
        private(set) var listeners = 0
        var replay: [Event] = []
        var task: Task<Void, Never>?
        var taskPriority: TaskPriority

        init(generation: UInt64, priority: LoadPriority, taskPriority: TaskPriority) {
            self.generation = generation
            self.priority = LoadPriorityHandle(priority)
            self.taskPriority = taskPriority
        }

        var isEmpty: Bool { subscribers.isEmpty }
        var highestPriority: LoadPriority {
            LoadPriority.allCases.last { priorityCounts[$0.rawValue] > 0 } ?? .low
        }
        var listeningSubscribers: [Subscriber<Value, Event>] {
            subscribers.values.compactMap { $0.subscriber.wantsEvents ? $0.subscriber : nil }
        }

        func add(_ subscriber: Subscriber<Value, Event>, priority: LoadPriority) {
            subscribers[ObjectIdentifier(subscriber)] = (subscriber, priority)
            priorityCounts[priority.rawValue] += 1
            if subscriber.wantsEvents { listeners += 1 }
        }

        /// Removes a caller; false when it was not here.
        func remove(_ id: ObjectIdentifier) -> Bool {
            guard let member = subscribers.removeValue(forKey: id) else { return false }
            priorityCounts[member.priority.rawValue] -= 1
            if member.subscriber.wantsEvents { listeners -= 1 }
            return true
        }

        /// Changes a caller's priority; false when it was not here.
        func setPriority(_ priority: LoadPriority, of id: ObjectIdentifier) -> Bool {
            guard let old = subscribers[id]?.priority else { return false }
            subscribers[id]?.priority = priority
            priorityCounts[old.rawValue] -= 1
            priorityCounts[priority.rawValue] += 1
            return true
        }
    }

    private let state = Locked(State())

    init() {}

    /// How many subscribers wait on work in flight, over every key (for tests that must know
    /// every caller has joined before they let the work finish).
    var subscriberCount: Int { state.withLock { $0.jobs.values.reduce(0) { $0 + $1.subscribers.count } } }

    /// Joins the work running for `key`, or starts `work` for it, and waits for its outcome.
    ///
    /// The caller joins before it waits. Work it starts runs on its thread up to the work's first
    /// suspension (``start(key:generation:priority:taskPriority:work:)``), so work that never
    /// suspends (a memory or disk query) has its outcome when `join` returns, and the caller takes
    /// it without suspending: no trip through the executor, no hand-off to another thread.
    func value(for key: Key, subscriber: Subscriber<Value, Event>, work: @escaping Work) async throws(ImageKernelError) -> Value {
        // A caller cancelled before it came starts nothing.
        if Task.isCancelled { subscriber.cancel() } else { join(key: key, subscriber: subscriber, work: work) }
        if let ready = subscriber.outcome { return try ready.get() }
        // A cancellation that came during the join is seen here: the handler runs at once.
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                _ = subscriber.install(continuation)  // resumes at once if the outcome came meanwhile
            }
        } onCancel: {
            subscriber.cancel()
        }
        return try outcome.get()
    }

    private func join(key: Key, subscriber: Subscriber<Value, Event>, work: @escaping Work) {
        let id = ObjectIdentifier(subscriber)
        let priority = subscriber.priority
        let taskPriority = subscriber.taskPriority
        let joined = state.withLock { state -> (generation: UInt64, priority: LoadPriorityHandle, replay: [Event], isNew: Bool, escalate: Task<Void, Never>?) in
            if let job = state.jobs[key] {
                job.add(subscriber, priority: priority)
                var escalate: Task<Void, Never>?
                if taskPriority > job.taskPriority {
                    job.taskPriority = taskPriority
                    escalate = job.task
                }
                return (job.generation, job.priority, job.replay, false, escalate)
            }
            state.nextGeneration += 1
            let job = JobState(generation: state.nextGeneration, priority: priority, taskPriority: taskPriority)
            job.add(subscriber, priority: priority)
            state.jobs[key] = job
            return (job.generation, job.priority, [], true, nil)
        }
        let generation = joined.generation
        let membership = Subscriber<Value, Event>.Membership(
            leave: { [weak self] in self?.leave(key: key, generation: generation, subscriber: id) },
            reprioritize: { [weak self] priority in self?.reprioritize(key: key, generation: generation, subscriber: id, to: priority) })
        guard subscriber.join(membership) else {
            membership.leave()  // cancelled between install and join
            return
        }
        for event in joined.replay { subscriber.emit(event) }
        if let task = joined.escalate { task.escalatePriority(to: taskPriority) }
        if joined.isNew {
            start(key: key, generation: generation, priority: joined.priority, taskPriority: taskPriority, work: work)
        } else {
            reprioritize(key: key, generation: generation, subscriber: id, to: priority)
        }
    }

    private func start(key: Key, generation: UInt64, priority: LoadPriorityHandle, taskPriority: TaskPriority, work: @escaping Work) {
        let job = Job(pool: self, key: key, generation: generation, priority: priority)
        // Started on the caller's thread, up to the work's first suspension: a cache hit or a
        // request handed to a loader needs no hop to another thread, and work that never
        // suspends (a memory query) has its outcome before the caller waits for it.
        let task = Task.immediate(priority: taskPriority) {
            let outcome: Result<Value, ImageKernelError>
            do {
                outcome = .success(try await work(job))
            } catch {
                outcome = .failure(ImageKernelError.wrap(error, stage: .request))
            }
            self.complete(key: key, generation: generation, outcome: outcome)
        }
        let orphaned = state.withLock { state -> Bool in
            guard state.jobs[key]?.generation == generation else { return true }
            state.jobs[key]?.task = task
            return false
        }
        // Every caller left before the task was recorded, or the work finished on the spot (then
        // the cancel does nothing).
        if orphaned { task.cancel() }
    }

    private func complete(key: Key, generation: UInt64, outcome: Result<Value, ImageKernelError>) {
        let subscribers = state.withLock { state -> [Subscriber<Value, Event>] in
            guard state.jobs[key]?.generation == generation else { return [] }
            return state.jobs.removeValue(forKey: key).map { $0.subscribers.values.map { $0.subscriber } } ?? []
        }
        for subscriber in subscribers { subscriber.finish(outcome) }
    }

    private func leave(key: Key, generation: UInt64, subscriber id: ObjectIdentifier) {
        let left = state.withLock { state -> (cancel: Task<Void, Never>?, priority: (LoadPriorityHandle, LoadPriority)?) in
            guard let job = state.jobs[key], job.generation == generation, job.remove(id) else { return (nil, nil) }
            if job.isEmpty {
                state.jobs.removeValue(forKey: key)
                return (job.task, nil)
            }
            return (nil, (job.priority, job.highestPriority))
        }
        left.cancel?.cancel()
        if let (handle, priority) = left.priority { handle.update(priority) }
    }

    private func reprioritize(key: Key, generation: UInt64, subscriber id: ObjectIdentifier, to priority: LoadPriority) {
        let update = state.withLock { state -> (LoadPriorityHandle, LoadPriority)? in
            guard let job = state.jobs[key], job.generation == generation, job.setPriority(priority, of: id) else { return nil }
            return (job.priority, job.highestPriority)
        }
        if let (handle, priority) = update { handle.update(priority) }
    }

    fileprivate func listeners(key: Key, generation: UInt64, sticky: Event?) -> [Subscriber<Value, Event>] {
        state.withLock { state in
            guard let job = state.jobs[key], job.generation == generation else { return [] }
            if let sticky { job.replay.append(sticky) }
            guard job.listeners > 0 else { return [] }
            return job.listeningSubscribers
        }
    }
}
