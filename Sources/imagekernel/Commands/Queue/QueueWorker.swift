import CacheRedis
import Foundation
import ImageKernel

/// The work loop of `imagekernel queue work`: takes entries, loads each through the manager
/// (paced for the whole fleet), stores the bytes in the shared tier with a store that reports
/// failure, and acknowledges only then.
struct QueueWorker: Sendable {
    struct Counts: Sendable {
        var handled = 0, loaded = 0, alreadyStored = 0, failed = 0, dead = 0, duplicates = 0
    }

    let consumer: RedisWorkQueue.Consumer
    let queue: RedisWorkQueue
    let manager: ImageManager
    let tier: RedisCache
    let pacer: SharedHostPacer
    let concurrency: Int
    let retries: Int
    let counts = Locked(Counts())

    /// Runs until `stopping` says so (entries in hand are finished first) or, with `untilEmpty`,
    /// until the queue has nothing waiting or in flight.
    func run(untilEmpty: Bool, stopping: @escaping @Sendable () -> Bool, progress: @escaping @Sendable () -> Void) async {
        // A discarding group keeps no finished child (memory stays flat over millions of
        // entries); the counter says how many are in hand, the stream wakes the loop when one ends.
        let inHand = Locked(0)
        let (finished, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        var wake = finished.makeAsyncIterator()
        await withDiscardingTaskGroup { group in
            var redisDown = false
            while !stopping() {
                let held = inHand.value
                if held >= concurrency {
                    _ = await wake.next()
                    continue
                }
                let entries: [RedisWorkQueue.Entry]
                do {
                    entries = try await consumer.take(count: concurrency - held, block: .milliseconds(held == 0 ? 500 : 50))
                    if redisDown { printError("queue \(queue.configuration.name): Redis answers again") }
                    redisDown = false
                } catch {
                    if !redisDown { printError("queue \(queue.configuration.name): \(ImageKernelError.wrap(error, stage: .cache).message); trying again") }
                    redisDown = true
                    try? await Task.sleep(for: .milliseconds(250))
                    continue
                }
                if entries.isEmpty {
                    if untilEmpty, inHand.value == 0, let stats = try? await queue.stats(), stats.waiting == 0, stats.inFlight == 0 { break }
                    continue
                }
                inHand.withLock { $0 += entries.count }
                for entry in entries {
                    group.addTask {
                        await handle(entry)
                        inHand.withLock { $0 -= 1 }
                        signal.yield()
                        progress()
                    }
                }
            }
        }
        signal.finish()
    }

    func handle(_ entry: RedisWorkQueue.Entry) async {
        counts.withLock { $0.handled += 1 }
        guard let url = URL(string: entry.url), url.scheme != nil else {
            return await failed(entry, "invalid_url\t\(entry.url.debugDescription) is not a URL")
        }
        let key = manager.cacheKey(for: url) ?? entry.url
        if (try? await tier.confirmedContains(key: key)) == true {
            return await completed(entry, as: .alreadyStored)
        }
        var context = ImageContext()
        context.storeCacheType = .disk
        context.queryCacheType = .disk
        let paced = url.scheme == "http" || url.scheme == "https"
        var attempt = 0
        while true {
            var permit: SharedHostPacer.Permit?
            if paced { permit = try? await pacer.acquire(host: SharedHostPacer.hostKey(for: url)) }
            do {
                let result = try await manager.image(for: url, options: [.retryFailed], context: context)
                if let permit { await pacer.report(permit, .served) }
                guard let data = result.data else { return await failed(entry, "no_data\tthe load gave no bytes to store") }
                do {
                    try await tier.store(CacheEntry(data: data, validators: result.validators), forKey: key, type: .disk)
                } catch {
                    return await failed(entry, "\(error.code)\tnot stored in the shared tier: \(error.message)")
                }
                return await completed(entry, as: .loaded)
            } catch {
                let refused = error.httpStatus == 429 || error.httpStatus == 503
                if let permit { await pacer.report(permit, refused ? .refused(retryAfter: error.retryAfter) : error.httpStatus != nil ? .served : .other) }
                guard error.isTransient, error.code != .cancelled, attempt < retries else {
                    return await failed(entry, "\(error.code)\t" + error.message + (error.httpStatus.map { " (HTTP \($0))" } ?? ""))
                }
                attempt += 1
                // Exponential backoff, never shorter than the host's Retry-After.
                var wait = Duration.milliseconds(200) * (1 << min(attempt - 1, 6))
                if let hint = error.retryAfter, hint > wait { wait = hint }
                try? await Task.sleep(for: min(wait, .seconds(30)))
            }
        }
    }

    private func completed(_ entry: RedisWorkQueue.Entry, as completion: RedisWorkQueue.Completion) async {
        let first = await persistently { () async throws(ImageKernelError) in try await consumer.complete(entry, as: completion) }
        counts.withLock {
            switch (first, completion) {
            case (false?, _): $0.duplicates += 1
            case (true?, .loaded): $0.loaded += 1
            case (true?, .alreadyStored): $0.alreadyStored += 1
            case (nil, _): break
            }
        }
    }

    private func failed(_ entry: RedisWorkQueue.Entry, _ error: String) async {
        let dead = await persistently { () async throws(ImageKernelError) in try await consumer.fail(entry, error: error) }
        counts.withLock {
            $0.failed += 1
            if dead == true { $0.dead += 1 }
        }
        printError([Sources.field(entry.url), "error", error].joined(separator: "\t"))
    }

    /// Retries a queue operation while Redis is away (a restart), for up to 30 s; nil if it never
    /// answered (the entry stays pending and is claimed again later).
    private func persistently<T>(_ operation: () async throws(ImageKernelError) -> T) async -> T? {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do { return try await operation() } catch {
                if ContinuousClock.now > deadline { return nil }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}
