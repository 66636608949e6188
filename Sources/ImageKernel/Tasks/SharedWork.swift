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

    /// How the caller that claimed a key goes on: with a value it found itself (say, in the memory
    /// cache), which every caller that joined meanwhile gets too, or with the work to run.
    enum Start: Sendable {
        case value(Value)
        case work(Work)
    }

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
    /// suspension (``start(key:generation:priority:work:)``), so work that never suspends (a memory
    /// or disk query) has its outcome when `join` returns, and the caller takes it without
    /// suspending: no trip through the executor, no hand-off to another thread.
    func value(for key: Key, subscriber: Subscriber<Value, Event>, work: @escaping Work) async throws(ImageKernelError) -> Value {
        try await value(for: key, subscriber: subscriber) { () -> Start in .work(work) }
    }

    /// Joins the work running for `key` without running anything of its own; or, when none runs,
    /// claims the key and runs `claim` in the caller's own task (no new task, no hop), which either
    /// answers (a cache hit: the caller and every caller that joined meanwhile get that value) or
    /// names the work to start. So a check that must happen once per piece of work (rule 9: one
    /// cache query per result) is made by the one caller that claims it, and callers that come
    /// while it runs wait for it instead of making their own. `claim` does not throw: were its
    /// caller cancelled, its error would reach callers that were not, so a check that fails hands
    /// over to the work instead.
    func value(
        for key: Key, subscriber: Subscriber<Value, Event>, claim: () async -> Start
    ) async throws(ImageKernelError) -> Value {
        // A caller cancelled before it came starts nothing.
        if Task.isCancelled {
            subscriber.cancel()
        } else if let claimed = join(key: key, subscriber: subscriber) {
            let start = await claim()
            // A caller cancelled meanwhile leaves; those that joined it keep the claim's outcome.
            if Task.isCancelled { subscriber.cancel() }
            switch start {
            case .value(let value): complete(key: key, generation: claimed.generation, outcome: .success(value))
            case .work(let work): self.start(key: key, generation: claimed.generation, priority: claimed.priority, work: work)
            }
        }
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

    /// Adds the caller to the job for `key`, creating the job when there is none. Returns the new
    /// job's generation and priority when this caller created it (and must start it), else nil.
    private func join(key: Key, subscriber: Subscriber<Value, Event>) -> (generation: UInt64, priority: LoadPriorityHandle)? {
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
            return nil
        }
        for event in joined.replay { subscriber.emit(event) }
        if let task = joined.escalate { task.escalatePriority(to: taskPriority) }
        if joined.isNew { return (generation, joined.priority) }
        reprioritize(key: key, generation: generation, subscriber: id, to: priority)
        return nil
    }

    private func start(key: Key, generation: UInt64, priority: LoadPriorityHandle, work: @escaping Work) {
        // Callers that joined while the claim ran may have raised the task priority; every caller
        // may have left too (then there is nothing to start).
        guard let taskPriority = state.withLock({ state in state.jobs[key].flatMap { $0.generation == generation ? $0.taskPriority : nil } })
        else { return }
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
        let recorded = state.withLock { state -> (orphaned: Bool, escalate: TaskPriority?) in
            guard let job = state.jobs[key], job.generation == generation else { return (true, nil) }
            job.task = task
            return (false, job.taskPriority > taskPriority ? job.taskPriority : nil)
        }
        // Every caller left before the task was recorded, or the work finished on the spot (then
        // the cancel does nothing).
        if recorded.orphaned { task.cancel() }
        // A caller of higher task priority joined before the task was recorded (it had none to escalate).
        if let higher = recorded.escalate { task.escalatePriority(to: higher) }
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
