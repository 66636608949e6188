import CoderHEIF
import Foundation
import ImageKernel
import ImageKernelTestSupport

enum Fixtures {
    /// A smooth opaque RGB gradient with some texture, `width`x`height`.
    static func gradient(width: Int, height: Int, alpha: Bool = false) throws -> Image {
        let channels = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * channels
                pixels[o] = UInt8(x * 255 / max(1, width - 1))
                pixels[o + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[o + 2] = UInt8((x + y) * 127 / max(1, width + height - 2) + 64)
                if alpha { pixels[o + 3] = UInt8(255 - x * 200 / max(1, width - 1)) }
            }
        }
        return try Image(width: width, height: height, pixelFormat: alpha ? .rgba8 : .rgb8, pixels: pixels)
    }

    /// Peak signal-to-noise ratio of two same-size images over their 8-bit RGBA samples.
    static func psnr(_ a: Image, _ b: Image) -> Double {
        let x = a.rgba8Pixels(), y = b.rgba8Pixels()
        guard x.count == y.count, !x.isEmpty else { return 0 }
        var sum = 0.0
        for i in x.indices {
            let d = Double(Int(x[i]) - Int(y[i]))
            sum += d * d
        }
        let mse = sum / Double(x.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// The ten smallest decodable corpus files, for exhaustive prefix tests.
    static var smallestDecodable: [String] {
        LibheifReference.decodable.map(\.path)
            .compactMap { path in (try? TestData.data(path)).map { (path, $0.count) } }
            .sorted { $0.1 < $1.1 }
            .prefix(10).map(\.0)
    }
}
