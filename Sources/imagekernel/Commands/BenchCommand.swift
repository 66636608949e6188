import ArgumentParser
import Foundation
import ImageKernel
import Transformers

/// `imagekernel bench decode|thumbnail|encode|resize FILE... --iterations N`.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time decode, thumbnail, encode or resize of your own images in process (median, min, max).",
        discussion: "For comparisons with the raw C libraries see the Benchmarks package."
    )

    enum Operation: String, ExpressibleByArgument, CaseIterable {
        case decode, thumbnail, encode, resize
    }

    @Argument(help: "decode, thumbnail, encode or resize.") var operation: Operation
    @Argument(help: "Image files.") var files: [String]
    @Option(help: "Timed runs per file.") var iterations: Int = 10
    @Option(help: "Thumbnail / resize box, WxH.") var size: String = "256x256"
    @Option(help: "Encode format (png, jpg, heic, avif); default: the file's own.") var format: String?
    @Option(help: "Resize filter: box, bilinear, bicubic or lanczos3.") var filter: String = "lanczos3"
    @Option(help: "Resize: time this transform spec instead of a fit into --size.") var transform: String?
    @Option(help: "Resize: at most this many threads (0: every core).") var threads: Int = 0

    static let header = ["file", "operation", "iterations", "median_ms", "min_ms", "max_ms"]

    func run() async throws {
        guard iterations >= 1, let box = PixelSize(parsing: size) else { throw ValidationError("need --iterations ≥ 1 and --size WxH") }
        guard let resampling = ResamplingFilter(name: filter), threads >= 0 else { throw ValidationError("need --filter box|bilinear|bicubic|lanczos3 and --threads ≥ 0") }
        let transformer: any ImageTransformer = try transform.map { try TransformSpec.validated($0, threadLimit: threads) }
            ?? ResizeTransformer(.fit, width: box.width, height: box.height, filter: resampling, allowsEnlarging: true, threadLimit: threads)
        let coders = Plugins.coders()
        print(Self.header.joined(separator: "\t"))
        var failed = false
        for file in files {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                let work = try makeWork(data: data, coders: coders, box: box, transformer: transformer)
                _ = try work()
                var samples: [Double] = []
                let clock = ContinuousClock()
                for _ in 0..<iterations {
                    let elapsed = try clock.measure { _ = try work() }
                    samples.append(elapsed.seconds * 1000)
                }
                samples.sort()
                print([Sources.field(file), operation.rawValue, "\(iterations)", String(format: "%.3f", samples[samples.count / 2]),
                       String(format: "%.3f", samples.first!), String(format: "%.3f", samples.last!)].joined(separator: "\t"))
            } catch let error as ImageKernelError {
                failed = true
                print(Sources.errorLine(file, error))
            } catch {
                failed = true
                print(Sources.errorLine(file, ImageKernelError(stage: .load, code: .ioError, message: "\(error)")))
            }
        }
        if failed { throw ExitCode(1) }
    }

    private func makeWork(data: Data, coders: CoderRegistry, box: PixelSize, transformer: any ImageTransformer) throws -> () throws -> Any {
        switch operation {
        case .decode:
            return { try coders.decode(data) }
        case .thumbnail:
            return { try coders.decode(data, options: DecodeOptions(thumbnailPixelSize: box)) }
        case .encode:
            let image = try coders.decode(data)
            let target = format.flatMap(ImageFormat.init(fileExtension:)) ?? ImageFormat.sniff(data)
            return { try coders.encode(image, as: target) }
        case .resize:
            let image = try coders.decode(data)
            return { try transformer.transform(image) }
        }
    }
}
