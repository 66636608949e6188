import BenchSupport
import CoderJPEG
import Foundation
import ImageKernel

/// `bench-jpeg grid`: thumbnail decode time against full decode time for boxes from 32 px to the
/// image's own size, on a 400x300 and a 6000x4000 photo. The rule it checks: a thumbnail never
/// costs more than a full decode (ratio full / thumbnail >= 1 in every cell).
/// `only` names one of the two sizes to run alone.
func benchmarkThumbnailGrid(photo: Image, only: String? = nil) throws {
    let small = try smallPhotoJPEG(photo)
    let large = only == "400x300" ? Data() : try Corpus.upscaledPhoto(photo)
    for (label, data, rounds) in [("400x300", small, 301), ("6000x4000", large, 7)] where only == nil || only == label {
        let full = try coder.decode(data, options: DecodeOptions())
        print("grid \(label) (\(data.count / 1024) KiB): box, thumbnail size, thumbnail ms, full ms, full/thumbnail")
        let sides = ProcessInfo.processInfo.environment["BENCH_GRID_BOX"].flatMap { Int($0) }.map { [$0] } ?? [32, 64, 128, 200, 256, 400, 0]
        for side in sides {
            let box = side == 0 ? PixelSize(width: full.width, height: full.height) : PixelSize(width: side, height: side)
            let options = DecodeOptions(thumbnailPixelSize: box)
            let thumbnail = try coder.decode(data, options: options)
            let (thumb, whole) = try interleaved(
                rounds, ours: { _ = try coder.decode(data, options: options) },
                baseline: { _ = try coder.decode(data, options: DecodeOptions()) })
            print(String(
                format: "  %-9@ %4dx%-4d thumbnail %8.3f ms  full %8.3f ms  ratio %.2fx%@",
                (side == 0 ? "full" : "\(side)") as NSString, thumbnail.width, thumbnail.height,
                thumb * 1000, whole * 1000, whole / thumb, (thumb <= whole ? "" : "  SLOWER") as NSString))
        }
    }
}

/// A 400x300 photo: the corpus photo at 450x300, its middle 400 columns, encoded at quality 0.85.
private func smallPhotoJPEG(_ photo: Image) throws -> Data {
    let scaled = try coder.decode(
        coder.encode(photo, as: .jpeg, options: EncodeOptions(quality: 0.95)),
        options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 450, height: 300)))
    var pixels: [UInt8] = []
    for y in 0..<300 {
        let start = y * scaled.bytesPerRow + 25 * 3
        pixels += scaled.pixels[start..<start + 400 * 3]
    }
    let image = try Image(width: 400, height: 300, pixelFormat: .rgb8, pixels: pixels)
    return try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 0.85))
}
