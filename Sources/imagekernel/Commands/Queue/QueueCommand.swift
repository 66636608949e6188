import ArgumentParser
import CacheRedis
import Foundation
import ImageKernel

/// `imagekernel queue push|work|stats|dead`: bulk loads shared by workers on many machines.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Bulk loads spread over many workers through a queue on Redis Streams.",
        discussion: """
            `push` adds a list of URLs to the queue NAME; `work` runs a worker that loads them into the \
            shared tier (and the local disk cache) as `prefetch` does, polite to each host across every \
            worker; `stats` and `dead` show the queue. Entries are acknowledged only once their result is \
            stored; a stopped worker's entries are taken over after --claim-idle; an entry that fails \
            --max-deliveries times moves to the dead-letter list with its last error.
            """,
        subcommands: [QueuePushCommand.self, QueueWorkCommand.self, QueueStatsCommand.self, QueueDeadCommand.self]
    )
}

/// The queue's name and server, shared by the subcommands.
struct QueueOptions: ParsableArguments {
    @Argument(help: "The queue's name (letters, digits, '.', '_', '-').")
    var name: String

    @Option(help: "The queue's Redis: redis://[:password@]host[:port][/db], or a Redis Cluster: redis+cluster://host:port,host:port.")
    var redis: String

    func validate() throws {
        do { _ = try RedisWorkQueue.Configuration(name: name, url: redis) } catch { throw ValidationError(error.message) }
    }

    func configuration() throws -> RedisWorkQueue.Configuration {
        do { return try RedisWorkQueue.Configuration(name: name, url: redis) } catch { throw ValidationError(error.message) }
    }
}

/// `imagekernel queue push NAME --redis URL --from FILE`.
struct QueuePushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push", abstract: "Add a list of URLs or paths (one per line) to the queue.",
        discussion: "Prints `pushed invalid partitions seconds`. The list is read as it is sent, in batches: its length does not change the memory used.")

    @OptionGroup var queue: QueueOptions

    @Option(help: "A file with one URL or path per line ('-' for standard input). Blank lines and lines starting with # are ignored.")
    var from: String

    @Option(help: "Streams the queue is split into, fixed by its first push (default: 1 on one server, 8 on a cluster).")
    var partitions: Int?

    static let header = ["pushed", "invalid", "partitions", "seconds"]

    func validate() throws {
        if let partitions, !(1...1024).contains(partitions) { throw ValidationError("--partitions must be 1 to 1024") }
    }

    func run() async throws {
        let sources: LineSource
        do { sources = try LineSource(path: from == "-" ? nil : from) } catch { throw ValidationError("cannot read --from \(from)") }
        var configuration = try queue.configuration()
        configuration.partitions = partitions
        let workQueue = RedisWorkQueue(configuration: configuration)
        let invalid = Locked(0)
        let start = ContinuousClock.now
        let urls = sources.lazy.compactMap { url -> String? in
            guard let url else { invalid.withLock { $0 += 1 }; return nil }
            return url.absoluteString
        }
        let pushed: Int
        let stats: RedisWorkQueue.Stats
        do {
            pushed = try await workQueue.push(urls)
            stats = try await workQueue.stats()
        } catch {
            printError(Sources.errorLine(queue.redis, error))
            throw ExitCode(1)
        }
        print(Self.header.joined(separator: "\t"))
        print(["\(pushed)", "\(invalid.value)", "\(stats.partitions)", String(format: "%.3f", (ContinuousClock.now - start).seconds)].joined(separator: "\t"))
    }
}

/// `imagekernel queue stats NAME --redis URL`.
struct QueueStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Print the queue's counters.",
        discussion: """
            Prints `waiting in_flight done dead loaded already_stored duplicates failed_deliveries total partitions`: \
            `done` = `loaded` (loaded by a worker) + `already_stored` (found in the shared tier, acknowledged \
            without a load); `duplicates` counts entries whose work was done twice (a worker taken over while \
            it still worked); `failed_deliveries` counts failed attempts, each entry once per delivery.
            """)

    @OptionGroup var queue: QueueOptions

    static let header = ["waiting", "in_flight", "done", "dead", "loaded", "already_stored", "duplicates", "failed_deliveries", "total", "partitions"]

    func run() async throws {
        let workQueue = RedisWorkQueue(configuration: try queue.configuration())
        do {
            let s = try await workQueue.stats()
            print(Self.header.joined(separator: "\t"))
            print([s.waiting, s.inFlight, s.done, s.dead, s.loaded, s.alreadyStored, s.duplicates, s.failedDeliveries, s.total, s.partitions]
                .map(String.init).joined(separator: "\t"))
        } catch {
            printError(Sources.errorLine(queue.redis, error))
            throw ExitCode(1)
        }
    }
}

/// `imagekernel queue dead NAME --redis URL [--requeue]`.
struct QueueDeadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead", abstract: "List the dead-letter entries with their last error; --requeue puts them back.",
        discussion: "Prints `url deliveries error id partition`, one line per entry, then with --requeue moves each back to the queue.")

    @OptionGroup var queue: QueueOptions

    @Flag(help: "Put the listed entries back in the queue.")
    var requeue = false

    static let header = ["url", "deliveries", "error", "id", "partition"]

    func run() async throws {
        let workQueue = RedisWorkQueue(configuration: try queue.configuration())
        print(Self.header.joined(separator: "\t"))
        do {
            try await workQueue.forEachDead { entries throws(ImageKernelError) in
                for entry in entries {
                    print([Sources.field(entry.url), "\(entry.deliveries)", Sources.field(entry.error), entry.id, "\(entry.partition)"].joined(separator: "\t"))
                }
            }
            if requeue {
                // Listed first, moved after: a moved entry is never listed twice.
                var all: [RedisWorkQueue.DeadEntry] = []
                try await workQueue.forEachDead { all += $0 }
                for entry in all { try await workQueue.requeue(entry) }
            }
        } catch {
            printError(Sources.errorLine(queue.redis, error))
            throw ExitCode(1)
        }
    }
}
