import ArgumentParser
import Foundation
import ImageKernel

/// `imagekernel prefetch --from FILE`: prefetch a list of URLs and print a summary.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Prefetch a list of URLs or paths (one per line) into the disk cache.",
        discussion: """
            Prints `finished skipped seconds images_per_second retried failed`: a failed source counts \
            as finished, skipped and failed; `retried` counts the sources that needed at least one retry. \
            The list is read as the loads go, so its length does not change the memory used; results go \
            to the disk cache only (no memory tier is filled).
            """
    )

    @Option(help: "A file with one URL or path per line ('-' for standard input). Blank lines and lines starting with # are ignored.")
    var from: String

    @Option(help: "Retries of a transient failure (timeout, connection lost, HTTP 408/429/5xx) per source, with exponential backoff and the server's Retry-After; 0 turns retries off.")
    var retries: Int = 4

    @Option(help: "Transfers to one host at once (scheme, name and port); each host's rate also adapts to its 429 and 503 answers.")
    var perHost: Int = 6

    @OptionGroup var load: LoadOptions

    static let header = ["finished", "skipped", "seconds", "images_per_second", "retried", "failed"]

    func validate() throws {
        guard retries >= 0 else { throw ValidationError("--retries must be 0 or more") }
        guard perHost >= 1 else { throw ValidationError("--per-host must be at least 1") }
    }

    func run() async throws {
        let sources: LineSource
        do {
            sources = try LineSource(path: from == "-" ? nil : from)
        } catch {
            throw ValidationError("cannot read --from \(from)")
        }
        let total = sources.count() ?? -1
        let manager = try Plugins.manager(cache: load.cache(indexed: false), concurrency: load.concurrency, perHost: perHost)
        // More loads waiting than transfers running, so that a host at its --per-host limit leaves
        // the other hosts' sources something to start.
        let slots = perHost < load.concurrency ? load.concurrency * 4 : load.concurrency
        let prefetcher = ImagePrefetcher(
            manager: manager, maxConcurrentPrefetchCount: slots, options: try load.imageOptions(),
            retryPolicy: RetryPolicy(maxAttempts: retries + 1, baseDelay: .milliseconds(200), maxDelay: .seconds(10), deadline: .seconds(120)))
        // The disk cache only: a prefetch never reads the memory tier back.
        var context = ImageContext()
        context.storeCacheType = .disk
        context.queryCacheType = .disk
        let bar = ProgressBar(total: total)
        let clock = ContinuousClock()
        let start = clock.now
        // Callbacks, not the events stream: a stream buffers every outcome its reader has not
        // taken yet, and over a million URLs that backlog is what would grow.
        let retried = Locked(0)
        let summary = await withCheckedContinuation { (continuation: CheckedContinuation<(finished: Int, skipped: Int), Never>) in
            prefetcher.prefetch(contentsOf: sources, total: total, context: context, progress: { progress in
                if progress.retries > 0 { retried.withLock { $0 += 1 } }
                bar.advance(bytes: Int64((try? progress.outcome.get().data?.count) ?? 0))
                if case .failure(let error) = progress.outcome, let url = progress.url, bar.isQuiet {
                    printError(Sources.errorLine(url.absoluteString, error))
                }
            }, completion: { finished, skipped in
                continuation.resume(returning: (finished, skipped))
            })
        }
        bar.finish()
        Plugins.finish(manager)
        let elapsed = clock.now - start
        let seconds = elapsed.seconds
        print(Self.header.joined(separator: "\t"))
        print(["\(summary.finished)", "\(summary.skipped)", String(format: "%.3f", seconds),
               String(format: "%.1f", seconds > 0 ? Double(summary.finished - summary.skipped) / seconds : 0),
               "\(retried.value)", "\(summary.skipped)"].joined(separator: "\t"))
    }
}
