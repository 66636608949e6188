import ArgumentParser
import Foundation
import ImageKernel
import Transformers

/// `imagekernel fetch SOURCE...`: `source cache_type width height bytes ms` per result.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load sources through the manager (cache, loader, decoder) and print one line per source."
    )

    @Argument(help: "File paths or URLs.")
    var sources: [String]

    @OptionGroup var load: LoadOptions

    @Option(help: "Decode to a thumbnail that fits WxH.")
    var thumbnail: String?

    @Option(help: "A transform spec, e.g. orient/resize:fill:300:200/round:12.")
    var transform: String?

    @Option(help: "The image the spec's watermark steps composite (decoded once).")
    var watermark: String?

    @Option(help: "Write each loaded image's bytes into this directory.")
    var out: String?

    @Flag(help: "Convert the pixels to sRGB through their ICC profile or CICP description (lcms2), cached under their own key.")
    var toSrgb = false

    static let header = ["source", "cache_type", "width", "height", "bytes", "ms"]

    func validate() throws {
        if let thumbnail, PixelSize(parsing: thumbnail) == nil { throw ValidationError("--thumbnail takes WxH, e.g. 256x256") }
        if let transform { _ = try TransformSpec.validated(transform, watermark: watermark == nil ? nil : TransformSpec.placeholderWatermark) }
    }

    func run() async throws {
        let manager = try Plugins.manager(cache: load.cache(), concurrency: load.concurrency, conversion: toSrgb ? .sRGB : nil)
        let options = try load.imageOptions()
        let mark = try TransformSpec.watermark(at: watermark, coders: manager.coders)
        let context: ImageContext = {
            var context = ImageContext()
            context.thumbnailPixelSize = thumbnail.flatMap(PixelSize.init(parsing:))
            context.transformer = (try? transform.map { try TransformSpec.validated($0, watermark: mark?.image) })?.keyed(by: mark)
            return context
        }()
        if let out { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) }

        let bar = ProgressBar(total: sources.count)
        let out = self.out
        let lines = await ParallelMap.run(sources, concurrency: load.concurrency) { source -> (String, Bool) in
            let clock = ContinuousClock()
            let start = clock.now
            do {
                let result = try await manager.image(for: Sources.url(for: source), options: options, context: context)
                let ms = (clock.now - start).seconds * 1000
                bar.advance(bytes: Int64(result.data?.count ?? 0))
                if let out, let data = result.data { try? Self.write(data, for: source, into: out) }
                let fields = [Sources.field(source), result.isFromSharedCache ? "shared" : result.cacheType.rawValue, "\(result.image?.width ?? 0)", "\(result.image?.height ?? 0)",
                              "\(result.data?.count ?? 0)", String(format: "%.1f", ms)]
                return (fields.joined(separator: "\t"), true)
            } catch {
                bar.advance()
                return (Sources.errorLine(source, error), false)
            }
        }
        bar.finish()
        Plugins.finish(manager)
        print(Self.header.joined(separator: "\t"))
        for (line, _) in lines { print(line) }
        if lines.contains(where: { !$0.1 }) { throw ExitCode(1) }
    }

    private static func write(_ data: Data, for source: String, into directory: String) throws {
        let name = URL(string: source)?.lastPathComponent ?? (source as NSString).lastPathComponent
        let safe = name.isEmpty ? "image" : name.replacingOccurrences(of: "/", with: "_")
        try data.write(to: URL(fileURLWithPath: directory).appendingPathComponent(safe), options: .atomic)
    }
}

/// Maps inputs through an async function with bounded concurrency, keeping input order.
enum ParallelMap {
    static func run<T: Sendable, R: Sendable>(
        _ inputs: [T], concurrency: Int, _ body: @escaping @Sendable (T) async -> R
    ) async -> [R] {
        await withTaskGroup(of: (Int, R).self) { group in
            var results = [R?](repeating: nil, count: inputs.count)
            var next = 0
            while next < min(concurrency, inputs.count) {
                let i = next
                group.addTask { (i, await body(inputs[i])) }
                next += 1
            }
            for await (i, result) in group {
                results[i] = result
                if next < inputs.count {
                    let j = next
                    group.addTask { (j, await body(inputs[j])) }
                    next += 1
                }
            }
            return results.map { $0! }
        }
    }
}
