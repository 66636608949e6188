import BenchSupport
import CoderJPEG
import Foundation
import ImageKernel

/// Section 3: one 6000×4000 JPEG to a thumbnail fitting 256×256, against vipsthumbnail and
/// against a full decode plus resize.
func benchmarkThumbnails(_ label: String, _ large: Data) throws {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("bench-jpeg-\(getpid())")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let batchSize = 6
    let copies = try (0..<batchSize).map { index -> URL in
        let url = work.appendingPathComponent("large\(index).jpg")
        try large.write(to: url)
        return url
    }
    let box = PixelSize(width: 256, height: 256)
    let thumbnailOptions = DecodeOptions(thumbnailPixelSize: box)
    let outputURL = work.appendingPathComponent("ours.jpg")

    /// File in, thumbnail JPEG out: what vipsthumbnail does (its default output quality is 75).
    func ourThumbnail(_ url: URL) throws -> Image {
        let image = try coder.decode(Data(contentsOf: url), options: thumbnailOptions)
        try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 0.75)).write(to: outputURL)
        return image
    }

    let ours = try ourThumbnail(copies[0])
    print("thumbnail, \(label): 6000x4000 (\(large.count / 1024) KiB) -> CoderJPEG \(ours.width)x\(ours.height)", terminator: "")
    guard Vips.executable != nil else {
        print("\nvipsthumbnail not found (apt install libvips-tools): vips comparison skipped")
        return
    }
    _ = try Vips.run([copies[0]], size: "256x256", outputDirectory: work)
    let vipsOut = try coder.decode(Data(contentsOf: work.appendingPathComponent("large0_vips.jpg")), options: DecodeOptions())
    print(", vipsthumbnail \(vipsOut.width)x\(vipsOut.height)")
    // Interleaved: each round times ours, vips on one file, and vips on the batch, back to back.
    for (threads, env) in [("default threads", [String: String]()), ("VIPS_CONCURRENCY=1", ["VIPS_CONCURRENCY": "1"])] {
        var oursSamples: [Double] = []
        var single: [Double] = []
        var batch: [Double] = []
        for _ in 0..<max(3, iterations / 2) {
            oursSamples += try Measure.samples(iterations: 1, warmup: 0) { _ = try ourThumbnail(copies[0]) }
            single.append(try Vips.run([copies[0]], size: "256x256", outputDirectory: work, environment: env))
            batch.append(try Vips.run(copies, size: "256x256", outputDirectory: work, environment: env))
        }
        let oursThumbnail = Measure.median(oursSamples)
        let perProcess = Measure.median(single)
        let perImage = (Measure.median(batch) - perProcess) / Double(batchSize - 1)
        report("thumbnail (\(label)) vs vipsthumbnail per process, \(threads)", ours: oursThumbnail, baseline: perProcess, goal: "goal >= 1.0x")
        report("thumbnail (\(label)) vs vipsthumbnail per image in a batch, \(threads)", ours: oursThumbnail, baseline: perImage, goal: "goal >= 1.0x")
    }

    let (thumbOnly, fullAndResize) = try interleaved(
        max(3, iterations / 2),
        ours: { _ = try coder.decode(large, options: thumbnailOptions) },
        baseline: {
            let full = try coder.decode(large, options: DecodeOptions())
            _ = NaiveResize.downscale(full, to: PixelSize.thumbnail(of: PixelSize(width: full.width, height: full.height), fitting: box))
        })
    report("thumbnail decode (\(label)) vs full decode + area resize", ours: thumbOnly, baseline: fullAndResize, goal: "goal >= 4x")
    let (_, fullOnly) = try interleaved(3, ours: {}, baseline: { _ = try coder.decode(large, options: DecodeOptions()) })
    report("thumbnail decode (\(label)) vs full decode alone", ours: thumbOnly, baseline: fullOnly)
    let (_, directEighth) = try interleaved(3, ours: {}, baseline: { try DirectLibjpeg.decode(large, numerator: 1) })
    report("thumbnail decode (\(label)) vs libjpeg direct at 1/8, no resize", ours: thumbOnly, baseline: directEighth)
}
