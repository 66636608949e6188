import ArgumentParser
import CacheRedis
import Foundation
import ImageKernel

/// `imagekernel queue work NAME --redis URL`: one worker of the fleet.
struct QueueWorkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "work", abstract: "Load the queue's URLs into the shared tier and the disk cache, beside other workers.",
        discussion: """
            Stores what `prefetch` stores, under the same keys (the local disk cache, and the shared tier: \
            --shared-cache, else the queue's own Redis), so `fetch --shared-cache` anywhere is answered from \
            the tier. An entry already in the shared tier is acknowledged without a load. Hosts are paced \
            for all workers together through the queue's Redis: at most --per-host transfers to a host \
            across the fleet, 429 and 503 lower a host's rate for all, a Retry-After of 2 s or more \
            pauses it for every worker. Runs until stopped (SIGTERM or SIGINT \
            finish the entries in hand, then stop), or with --until-empty until nothing waits or is in \
            flight. Prints `handled loaded already_stored failed dead duplicates seconds images_per_second`.
            """)

    @OptionGroup var queue: QueueOptions

    @Option(help: "The shared tier results are stored in (default: the queue's --redis).")
    var sharedCache: String?

    @Option(help: "Milliseconds one shared-tier wait may take; a store that does not finish in time is a failed delivery (default 1000).")
    var sharedCacheTimeout: Int = 1000

    @Option(help: "Disk cache directory (default: $XDG_CACHE_HOME/imagekernel or ~/.cache/imagekernel).")
    var cacheDir: String?

    @Option(help: "Entries this worker loads at once.")
    var concurrency: Int = 6

    @Option(help: "Transfers to one host at once from all the workers of the queue's Redis together (each worker passes its own; give them all the same).")
    var perHost: Int = 6

    @Option(help: "Retries of a transient failure (timeout, connection lost, HTTP 408/429/5xx) within one delivery; 0 turns them off.")
    var retries: Int = 4

    @Option(help: "Deliveries of an entry before it moves to the dead-letter list with its last error.")
    var maxDeliveries: Int = 3

    @Option(help: "Seconds an entry may stay with a worker before another takes it over (a stopped worker's entries).")
    var claimIdle: Double = 60

    @Option(help: "This worker's consumer name (default: host name and process id); each worker needs its own.")
    var consumer: String?

    @Flag(help: "Stop when nothing is waiting or in flight.")
    var untilEmpty = false

    static let header = ["handled", "loaded", "already_stored", "failed", "dead", "duplicates", "seconds", "images_per_second"]

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard perHost >= 1 else { throw ValidationError("--per-host must be at least 1") }
        guard retries >= 0 else { throw ValidationError("--retries must be 0 or more") }
        guard maxDeliveries >= 1 else { throw ValidationError("--max-deliveries must be at least 1") }
        guard claimIdle >= 0.1 else { throw ValidationError("--claim-idle must be at least 0.1 (seconds)") }
        guard sharedCacheTimeout >= 1 else { throw ValidationError("--shared-cache-timeout must be at least 1 (milliseconds)") }
        if let sharedCache {
            do { _ = try RedisCache.Configuration(url: sharedCache) } catch { throw ValidationError("--shared-cache: \(error.message)") }
        }
    }

    func run() async throws {
        var configuration = try queue.configuration()
        configuration.maxDeliveries = maxDeliveries
        configuration.claimIdle = .milliseconds(Int64(claimIdle * 1000))
        let workQueue = RedisWorkQueue(configuration: configuration)
        var tier = try RedisCache.Configuration(url: sharedCache ?? queue.redis)
        tier.timeout = .milliseconds(sharedCacheTimeout)
        let disk = Plugins.diskCache(directory: cacheDir, indexed: false)
        let manager = try Plugins.manager(
            cache: TieredCache(memory: MemoryCache(), backing: disk), concurrency: concurrency, perHost: perHost, adaptive: false)
        let name = consumer ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())"
        let worker = QueueWorker(
            consumer: workQueue.consumer(named: name), queue: workQueue, manager: manager, tier: RedisCache(configuration: tier),
            pacer: SharedHostPacer(configuration: configuration.redis, perHost: perHost), concurrency: concurrency, retries: retries)
        let stop = StopSignals()
        let initial = (try? await workQueue.stats()).map { $0.waiting + $0.inFlight } ?? -1
        let bar = ProgressBar(total: initial)
        let start = ContinuousClock.now
        await worker.run(untilEmpty: untilEmpty, stopping: { stop.received }, progress: { bar.advance() })
        bar.finish()
        Plugins.finish(manager)
        let seconds = (ContinuousClock.now - start).seconds
        let c = worker.counts.value
        print(Self.header.joined(separator: "\t"))
        print(["\(c.handled)", "\(c.loaded)", "\(c.alreadyStored)", "\(c.failed)", "\(c.dead)", "\(c.duplicates)", String(format: "%.3f", seconds),
               String(format: "%.1f", seconds > 0 ? Double(c.loaded) / seconds : 0)].joined(separator: "\t"))
    }
}

/// SIGTERM and SIGINT as a flag: the worker finishes what it holds, then stops.
final class StopSignals: @unchecked Sendable {
    // @unchecked: `sources` is set once in init and only kept alive, never used again.
    private let flag = Locked(false)
    private let sources: [any DispatchSourceSignal]

    init() {
        let flag = self.flag
        sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { flag.withLock { $0 = true } }
            source.resume()
            return source
        }
    }

    var received: Bool { flag.value }
}
