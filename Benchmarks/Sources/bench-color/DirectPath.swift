import BenchSupport
import CoderJPEG
import ColorLCMS
import Foundation
import ImageKernel

#if canImport(Glibc)
import Glibc
#endif

// The direct matrix/shaper path against lcms, in CPU time of the calling thread (the conversions
// and renders measured here run on it: 300x200 is one band, TransformThreads.limit is 1), in
// interleaved rounds whose order rotates, so every variant sees the same load on a shared machine.

/// CPU seconds the calling thread has used.
func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The median CPU seconds of one run of each body, from `rounds` interleaved rounds of `repeats` runs.
func interleavedCPU(rounds: Int, repeats: Int = 1, _ bodies: [() throws -> Void]) throws -> [Double] {
    for body in bodies { try body() }
    var samples = [[Double]](repeating: [], count: bodies.count)
    for round in 0..<rounds {
        for k in bodies.indices {
            let index = (k + round) % bodies.count
            let start = threadCPUSeconds()
            for _ in 0..<repeats { try bodies[index]() }
            samples[index].append((threadCPUSeconds() - start) / Double(repeats))
        }
    }
    return samples.map(Measure.median)
}

/// The converter alone on a 300x200 Display P3 image (the proxy's output size), RGB and RGBA:
/// the direct path against `LCMSColorConverter(allowsDirectPath: false)`, lcms's transform.
func benchDirectConversion(rounds: Int) throws {
    let p3 = try LCMSColorConverter.displayP3Profile()
    let (width, height) = (300, 200)
    let rgb = SyntheticPhoto.rgb8(width: width, height: height, seed: 5)
    print("converter alone, \(width)x\(height) Display P3 -> sRGB (relative + BPC), thread CPU, median of \(rounds) interleaved rounds")
    for channels in [3, 4] {
        var pixels = rgb
        if channels == 4 {
            pixels = []
            for p in 0..<(width * height) { pixels += rgb[(p * 3)..<(p * 3 + 3)] + [UInt8(truncatingIfNeeded: p)] }
        }
        var image = try Image(width: width, height: height, pixelFormat: channels == 4 ? .rgba8 : .rgb8, pixels: pixels)
        image.iccProfile = p3
        let direct = LCMSColorConverter(), lcms = LCMSColorConverter(allowsDirectPath: false)
        let times = try interleavedCPU(rounds: rounds, repeats: 10, [
            { _ = try direct.convert(image, .sRGB) }, { _ = try lcms.convert(image, .sRGB) },
        ])
        guard direct.conversionCounts.lcms == 0, lcms.conversionCounts.direct == 0 else { throw BenchError("a converter took the other path") }
        let perPixel = times.map { $0 / Double(width * height) * 1e9 }
        print(String(format: "  %@: direct %.2f ns/px, lcms %.2f ns/px: lcms / direct %.2fx", channels == 4 ? "RGBA" : "RGB", perPixel[0], perPixel[1], perPixel[1] / perPixel[0]))
    }
}

/// A whole cold render as image-proxy does it, 400x300 JPEG -> `resize:fill:300:200` JPEG q80:
/// untagged (the planar path) against a Display P3 source: the RGB path converted after the
/// resize with the direct path and with lcms, the RGB path without any conversion, and the
/// planar path with the planes converted (`convertPlanes`) after the resize.
func benchTaggedRender(
    rounds: Int, planar: @escaping (Data) throws -> Data, rgb: @escaping (Data, ColorConversionTransformer?) throws -> Data,
    planarConverted: @escaping (Data, LCMSColorConverter) throws -> Data
) throws {
    let (width, height) = (400, 300)
    let photo = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb8(width: width, height: height, seed: 3))
    let quality = EncodeOptions(quality: 0.9)
    let untagged = try JPEGCoder().encode(photo, as: .jpeg, options: quality)
    let p3 = try LCMSColorConverter.displayP3Profile()
    let tagged = try JPEGCoder().encode(try LCMSColorConverter().convert(photo, ColorConversion(target: .profile(p3))), as: .jpeg, options: quality)
    let planesConverter = LCMSColorConverter()
    let direct = ColorConversionTransformer(converter: LCMSColorConverter()), lcms = ColorConversionTransformer(converter: LCMSColorConverter(allowsDirectPath: false))
    let times = try interleavedCPU(rounds: rounds, [
        { _ = try planar(untagged) }, { _ = try rgb(tagged, direct) }, { _ = try rgb(tagged, lcms) }, { _ = try rgb(tagged, nil) },
        { _ = try planarConverted(tagged, planesConverter) },
    ])
    print("whole render, \(width)x\(height) JPEG -> resize:fill:300:200 JPEG q80 as image-proxy renders it, thread CPU, median of \(rounds) interleaved rounds")
    print(String(format: "  untagged (planar path): %.3f ms", times[0] * 1000))
    print(String(format: "  Display P3, direct path: %.3f ms: %.3fx untagged (goal <= 1.25x)", times[1] * 1000, times[1] / times[0]))
    print(String(format: "  Display P3, lcms: %.3f ms: %.3fx untagged; direct saves %.3f ms a render", times[2] * 1000, times[2] / times[0], (times[2] - times[1]) * 1000))
    print(String(format: "  Display P3, planar path with the planes converted: %.3f ms: %.3fx untagged (goal <= 1.25x)", times[4] * 1000, times[4] / times[0]))
    print(String(format: "  RGB path without conversion: %.3f ms: %.3fx untagged (what the path costs before any colour)", times[3] * 1000, times[3] / times[0]))
}
