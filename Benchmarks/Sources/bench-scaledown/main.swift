import BenchSupport
import CBenchJPEG
import CBenchPNG
import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel

// Scale-down at the ceiling (issue 35): `scaleDownLargeImages` reads every source pixel, so a
// source is refused from its header past DecodeOptions.effectiveScaleDownSourcePixelLimit (by
// default 4 × the pixel limit). This times the worst case that is still accepted, a file of
// exactly the ceiling, as ratios:
//   - against a plain full decode of the same file by the C library (libpng, libjpeg-turbo at
//     8/8), which is what the file would cost without scaling down: the scale-down's price for
//     holding only the small output;
//   - against a full decode of a file at the pixel limit, the most a decode without scaling may
//     cost: the ceiling's factor bounds this near 4x;
//   - per source megapixel, and extrapolated to the default limit's ceiling (1.024 gigapixels);
//   - the refusal of a header past the ceiling (100000x100000) against the accepted scale-down.
// Times are the calling thread's CPU time (the machine is shared), medians of alternating rounds.
//
// Usage: bench-scaledown [--limit PIXELS] [--rounds N]   (default limit 4,000,000: a 4000x4000
// source at the ceiling; 48 MB of RGB for the baselines' full decodes)

let limit = Options.int("--limit", 4_000_000)
let rounds = Options.int("--rounds", 7)
let decode = DecodeOptions(pixelLimit: limit, scaleDownLargeImages: true)
let ceiling = decode.effectiveScaleDownSourcePixelLimit
let side = Int(Double(ceiling).squareRoot())  // a square source of at most the ceiling
let limitSide = Int(Double(limit).squareRoot())
print("pixel limit \(limit), scale-down ceiling \(ceiling) (\(DecodeOptions.defaultScaleDownSourcePixelFactor)x); source \(side)x\(side), at-limit file \(limitSide)x\(limitSide)")

func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Median CPU seconds of each body, run in alternating order after one warm-up run each.
func cpuMedians(rounds: Int, _ bodies: [() -> Void]) -> [Double] {
    for body in bodies { body() }
    var samples = [[Double]](repeating: [], count: bodies.count)
    for round in 0..<rounds {
        let order = round % 2 == 0 ? Array(bodies.indices) : Array(bodies.indices.reversed())
        for index in order {
            let start = threadCPUSeconds()
            bodies[index]()
            samples[index].append(threadCPUSeconds() - start)
        }
    }
    return samples.map(Measure.median)
}

/// A deterministic photo-like RGB image: gradients, soft waves, a little noise.
func photo(_ width: Int, _ height: Int) -> Image {
    var state: UInt32 = 2024
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        let fy = Double(y) / Double(height)
        for x in 0..<width {
            let fx = Double(x) / Double(width)
            for c in 0..<3 {
                state = state &* 1_664_525 &+ 1_013_904_223
                let value = 0.4 + 0.3 * fx + 0.2 * fy + 0.2 * sin(fx * 9 + Double(c)) * cos(fy * 7) + Double(state >> 24) / 255 * 0.04
                pixels[(y * width + x) * 3 + c] = UInt8(min(1, max(0, value)) * 255)
            }
        }
    }
    return try! Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
}

func report(_ label: String, scaled: Double, full: Double, atLimit: Double, source: Int) {
    let perMegapixel = scaled / (Double(source) / 1e6)
    print(String(
        format: "%-5@ scale-down of %dx%d: %8.1f ms cpu | vs C full decode of the same file (%7.1f ms): %.2fx | vs C full decode at the limit (%6.1f ms): %.2fx | %.2f ms per source megapixel, %.1f s at the default ceiling (1024 MP)",
        label as NSString, side, side, scaled * 1e3, full * 1e3, scaled / full, atLimit * 1e3, scaled / atLimit, perMegapixel * 1e3,
        perMegapixel * 1024))
}

/// Times `coder`'s scale-down of a `side`×`side` file at the ceiling against `baseline` (the C
/// library's full decode) of the same file and of a file at the pixel limit; returns the first.
func bench(_ label: String, coder: any ImageCoder, format: ImageFormat, baseline: @escaping (Data) -> Void) throws -> Double {
    let encode = EncodeOptions(quality: 0.9, compressionLevel: 6)
    let source = try coder.encode(photo(side, side), as: format, options: encode)
    let atLimit = try coder.encode(photo(limitSide, limitSide), as: format, options: encode)
    let scaled = try coder.decode(source, options: decode)
    precondition(scaled.width * scaled.height <= limit)
    let times = cpuMedians(rounds: rounds, [{ _ = try? coder.decode(source, options: decode) }, { baseline(source) }, { baseline(atLimit) }])
    report(label, scaled: times[0], full: times[1], atLimit: times[2], source: side * side)
    return times[0]
}

// PNG: row by row (inflate, unfilter, box average), never the full buffer.
let png = PNGCoder()
let pngScaleDown = try bench("PNG", coder: png, format: .png) { data in
    data.withUnsafeBytes { raw in
        var width: UInt32 = 0, height: UInt32 = 0, rowBytes = 0
        var pixels: UnsafeMutablePointer<UInt8>?
        guard cbenchpng_decode(raw.baseAddress, raw.count, 0, &width, &height, &rowBytes, &pixels) == 0 else { fatalError("libpng failed") }
        free(pixels)
    }
}

// JPEG: the largest N/8 under the limit, entropy decoding every block of the source.
_ = try bench("JPEG", coder: JPEGCoder(), format: .jpeg) { data in
    data.withUnsafeBytes { raw in
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0, height: UInt32 = 0, channels: Int32 = 0
        guard cbench_jpeg_decode(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, 8, &pixels, &width, &height, &channels) == 0
        else { fatalError("libjpeg failed") }
        cbench_free(pixels)
    }
}

// Past the ceiling: refused from IHDR, whatever the header claims.
func pngChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
    func be32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in Array(type.utf8) + body {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return be32(UInt32(body.count)) + Array(type.utf8) + body + be32(~crc)
}
let bomb = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 2, 0, 0, 0])
    + pngChunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + pngChunk("IEND", []))  // libpng reads up to the first IDAT
let defaults = DecodeOptions(scaleDownLargeImages: true)
do {
    _ = try png.decode(bomb, options: defaults)
    fatalError("the 100000x100000 header was accepted")
} catch {
    precondition(error.code == .pixelLimitExceeded, "\(error)")
}
let refusals = 1000
let refusal = cpuMedians(rounds: rounds, [{ for _ in 0..<refusals { _ = try? png.decode(bomb, options: defaults) } }])[0] / Double(refusals)
print(String(format: "PNG   100000x100000 header with scale-down (default options): refused in %.1f µs cpu, %.5fx the accepted scale-down above",
             refusal * 1e6, refusal / pngScaleDown))
