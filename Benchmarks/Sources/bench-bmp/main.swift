import BenchSupport
import CoderBMP
import CoderPNG
import Foundation
import ImageKernel

// CoderBMP benchmarks: decode of BMPs (24-bit 12 MP made by our encoder, 32-bit BI_BITFIELDS
// with alpha, 8-bit palette, RLE8) and ICOs (PNG and BMP entries) against Pillow (Pillow-SIMD
// where set up) in process (Scripts/pillow_bmp.py: load + convert to the same mode). There is no C
// library to compare with: CoderBMP is Swift. Goal: >= 1.5x Pillow-SIMD.

let coder = BMPCoder(pngCoder: PNGCoder())
let bitmapEntries = BMPCoder()
let rounds = Options.int("--rounds", 15)

func pillow(_ file: URL, mode: String, iterations: Int) throws -> Double? {
    guard let python = Peers.pillowPython()?.python else { return nil }
    let script = benchmarksDirectory().appendingPathComponent("Scripts/pillow_bmp.py").path
    return Double(try Peers.run(python, [script, "\(iterations)", mode, file.path]).trimmingCharacters(in: .whitespacesAndNewlines))
}

/// An 8-bit BMP of `indices` with a 3-3-2 palette, uncompressed or RLE8 (runs, no absolute mode).
func palettedBMP(width: Int, height: Int, indices: [UInt8], rle: Bool) -> Data {
    var pixels: [UInt8] = []
    for y in (0..<height).reversed() {
        let row = indices[(y * width)..<((y + 1) * width)]
        if rle {
            var x = row.startIndex
            while x < row.endIndex {
                var run = 1
                while run < 255 && x + run < row.endIndex && row[x + run] == row[x] { run += 1 }
                pixels += [UInt8(run), row[x]]
                x += run
            }
            pixels += [0, 0]
        } else {
            pixels += row
            pixels += [UInt8](repeating: 0, count: (4 - width % 4) % 4)
        }
    }
    if rle { pixels += [0, 1] }
    var palette: [UInt8] = []
    for index in 0..<256 { palette += [UInt8((index & 3) * 85), UInt8((index >> 2 & 7) * 255 / 7), UInt8((index >> 5) * 255 / 7), 0] }
    func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    let offset = 14 + 40 + palette.count
    var file: [UInt8] = Array("BM".utf8) + le32(offset + pixels.count) + le32(0) + le32(offset)
    file += le32(40) + le32(width) + le32(height) + [1, 0, 8, 0] + le32(rle ? 1 : 0) + le32(pixels.count) + le32(2835) + le32(2835) + le32(256) + le32(0)
    return Data(file + palette + pixels)
}

func photoIndices(width: Int, height: Int) -> [UInt8] {
    let photo = SyntheticPhoto.rgb8(width: width, height: height, seed: 3)
    // Posterised so that RLE finds runs, as in the screenshots and diagrams RLE8 is used for.
    return (0..<(width * height)).map { i -> UInt8 in
        let red: UInt8 = (photo[i * 3] >> 5) & 6, green: UInt8 = (photo[i * 3 + 1] >> 5) & 6, blue: UInt8 = photo[i * 3 + 2] >> 6
        return red << 5 | green << 2 | blue
    }
}

let fixtures: [(name: String, file: String, mode: String, make: () throws -> Data)] = [
    ("24-bit 4000x3000", "bmp-rgb24-4000x3000.bmp", "RGB", {
        try coder.encode(try Image(width: 4000, height: 3000, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb8(width: 4000, height: 3000)), as: .bmp, options: EncodeOptions())
    }),
    ("32-bit bitfields+alpha 2000x1500", "bmp-rgba32-2000x1500.bmp", "RGBA", {
        let rgb = SyntheticPhoto.rgb8(width: 2000, height: 1500, seed: 2)
        var rgba = [UInt8](repeating: 0, count: 2000 * 1500 * 4)
        for i in 0..<(2000 * 1500) {
            rgba[i * 4] = rgb[i * 3]; rgba[i * 4 + 1] = rgb[i * 3 + 1]; rgba[i * 4 + 2] = rgb[i * 3 + 2]; rgba[i * 4 + 3] = UInt8(i % 2000 * 255 / 1999)
        }
        return try coder.encode(try Image(width: 2000, height: 1500, pixelFormat: .rgba8, pixels: rgba), as: .bmp, options: EncodeOptions())
    }),
    ("8-bit palette 2000x1500", "bmp-pal8-2000x1500.bmp", "RGB", { palettedBMP(width: 2000, height: 1500, indices: photoIndices(width: 2000, height: 1500), rle: false) }),
    ("RLE8 2000x1500", "bmp-rle8-2000x1500.bmp", "RGB", { palettedBMP(width: 2000, height: 1500, indices: photoIndices(width: 2000, height: 1500), rle: true) }),
    ("ICO 16-256, BMP entries", "ico-bmp-entries-256.ico", "RGBA", {
        let rgb = SyntheticPhoto.rgb8(width: 256, height: 256, seed: 4)
        return try bitmapEntries.encode(try Image(width: 256, height: 256, pixelFormat: .rgb8, pixels: rgb), as: .ico, options: EncodeOptions())
    }),
]

print("bench-bmp: CoderBMP (Swift) vs \(Peers.pillowPython()?.label ?? "no Pillow (run Benchmarks/peers/setup.sh)") in process, load + convert to the same mode")
for fixture in fixtures {
    let data = try FixtureCache.data(fixture.file, make: fixture.make)
    try decodeCase(fixture.name, url: FixtureCache.directory.appendingPathComponent(fixture.file), data: data, mode: fixture.mode)
}
try decodeCase("pillow.ico (256 PNG entry)", url: testDataRoot().appendingPathComponent("ico/pillow/pillow.ico"),
    data: try Data(contentsOf: testDataRoot().appendingPathComponent("ico/pillow/pillow.ico")), mode: "RGBA")

func decodeCase(_ name: String, url: URL, data: Data, mode: String) throws {
    let image = try coder.decode(data, options: DecodeOptions())
    precondition(image.pixelFormat == (mode == "RGB" ? .rgb8 : .rgba8), "\(name): \(image.pixelFormat)")
    let samples = Measure.samples(iterations: rounds) { _ = try! coder.decode(data, options: DecodeOptions()) }
    if let pillowSeconds = try pillow(url, mode: mode, iterations: rounds) {
        report("decode \(name) (\(image.width)x\(image.height)) vs Pillow", ours: Measure.median(samples), baseline: pillowSeconds, goal: "goal >= 1.5x")
    } else {
        print("decode \(name): \(Measure.median(samples)) s (no Pillow)")
    }
}
// Context for the 24-bit case: its 36 MB output is above glibc's largest mmap threshold (32 MB),
// so every decode gets fresh pages from the kernel; this is the cost of that buffer alone.
let bytes = 4000 * 3000 * 3
let floorSamples = Measure.samples(iterations: rounds) {
    let buffer = [UInt8](unsafeUninitializedCapacity: bytes) { buffer, count in
        if let base = buffer.baseAddress { memset(base, 1, bytes) }
        count = bytes
    }
    precondition(buffer.count == bytes)
}
print(String(format: "floor: allocate and write the 36 MB output of the 24-bit case: %.6f s", Measure.median(floorSamples)))
