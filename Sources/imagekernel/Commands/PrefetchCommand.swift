import ArgumentParser
import Foundation
import ImageKernel

/// `imagekernel prefetch --from FILE`: prefetch a list of URLs and print a summary.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Prefetch a list of URLs or paths (one per line) into the cache.",
        discussion: "Prints `finished skipped seconds images_per_second`; a failed source counts as finished and skipped."
    )

    @Option(help: "A file with one URL or path per line ('-' for standard input). Blank lines and lines starting with # are ignored.")
    var from: String

    @OptionGroup var load: LoadOptions

    static let header = ["finished", "skipped", "seconds", "images_per_second"]

    func run() async throws {
        let text: String
        if from == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let contents = try? String(contentsOfFile: from, encoding: .utf8) else {
                throw ValidationError("cannot read --from \(from)")
            }
            text = contents
        }
        let sources = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let manager = try Plugins.manager(cache: load.cache(), concurrency: load.concurrency)
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: load.concurrency, options: try load.imageOptions())
        let bar = ProgressBar(total: sources.count)
        let clock = ContinuousClock()
        let start = clock.now
        var summary = (finished: 0, skipped: 0)
        for await event in prefetcher.events(for: sources.map(Sources.url(for:))) {
            switch event {
            case .progress(let progress):
                bar.advance(bytes: Int64((try? progress.outcome.get().data?.count) ?? 0))
                if case .failure(let error) = progress.outcome, let url = progress.url {
                    if bar.isQuiet { printError(Sources.errorLine(url.absoluteString, error)) }
                }
            case .completed(let finished, let skipped):
                summary = (finished, skipped)
            }
        }
        bar.finish()
        Plugins.finish(manager)
        let elapsed = clock.now - start
        let seconds = elapsed.seconds
        print(Self.header.joined(separator: "\t"))
        print(["\(summary.finished)", "\(summary.skipped)", String(format: "%.3f", seconds),
               String(format: "%.1f", seconds > 0 ? Double(summary.finished - summary.skipped) / seconds : 0)].joined(separator: "\t"))
    }
}
