import Foundation
import ImageKernel
import ImageKernelConformance

/// Flips an image upside down; works on every pixel format and honours `bytesPerRow`.
struct FlipTransformer: ImageTransformer {
    var key: String { "flipVertical" }

    func transform(_ image: Image) throws(ImageKernelError) -> Image {
        let rowBytes = image.width * image.pixelFormat.bytesPerPixel
        var pixels: [UInt8] = []
        pixels.reserveCapacity(rowBytes * image.height)
        for row in (0..<image.height).reversed() {
            let start = row * image.bytesPerRow
            pixels += image.pixels[start..<start + rowBytes]
        }
        var output = image
        (output.pixels, output.bytesPerRow) = (pixels, rowBytes)
        return output
    }
}

/// The flip transformer with one deliberate bug, chosen to break one case of the transformer suite.
struct BrokenTransformer: ImageTransformer {
    let breaks: TransformerConformance.Case
    private let base = FlipTransformer()
    private let calls = Locked(0)
    private let inFlight = InFlight()

    init(breaking testCase: TransformerConformance.Case) { breaks = testCase }

    var key: String {
        // Builds its key from a counter that moves on every read.
        breaks == .keyIsStableAndNonEmpty ? "flip-\(calls.withLock { $0 += 1; return $0 })" : base.key
    }

    func transform(_ image: Image) throws(ImageKernelError) -> Image {
        switch breaks {
        case .outputIsValidImage:
            var output = try base.transform(image)
            output.bytesPerRow += 4  // claims padding it did not allocate
            return output
        case .outputIsDeterministic:
            var output = try base.transform(image)
            output.pixels[0] = UInt8(truncatingIfNeeded: calls.withLock { $0 += 1; return $0 })
            return output
        case .handlesEveryPixelFormat where image.pixelFormat.bitsPerComponent == 16 && image.width > 1:
            throw ImageKernelError(stage: .decode, code: .unsupported, message: "16-bit")  // the wrong stage
        case .handlesOnePixelImage where image.pixelCount == 1:
            var output = try base.transform(image)
            output.pixels = []  // an off-by-one leaves nothing
            return output
        case .honorsRowPadding:
            var tight = image
            tight.bytesPerRow = image.width * image.pixelFormat.bytesPerPixel  // ignores padding
            return try base.transform(tight)
        case .concurrentUseAgrees:
            // A shared scratch buffer: an overlapping call gets it zeroed.
            let overlapped = inFlight.enter()
            defer { inFlight.leave() }
            Thread.sleep(forTimeInterval: 0.001)
            var output = try base.transform(image)
            if overlapped || inFlight.count > 1 { output.pixels = [UInt8](repeating: 0, count: output.pixels.count) }
            return output
        default:
            return try base.transform(image)
        }
    }
}

/// A key filter with one deliberate bug, chosen to break one case of the key filter suite.
struct BrokenKeyFilter: CacheKeyFilter {
    let breaks: CacheKeyFilterConformance.Case
    private let base = AbsoluteURLCacheKeyFilter()
    private let calls = Locked(0)
    private let inFlight = InFlight()

    init(breaking testCase: CacheKeyFilterConformance.Case) { breaks = testCase }

    func cacheKey(for url: URL) -> String? {
        switch breaks {
        case .keyIsDeterministic:
            return url.absoluteString + "#\(calls.withLock { $0 += 1; return $0 })"  // a counter in the key
        case .cacheableURLsGetKeys:
            return url.isFileURL ? nil : base.cacheKey(for: url)  // refuses file URLs
        case .distinctURLsGetDistinctKeys:
            return url.lastPathComponent  // a.png is a.png wherever it lives
        case .concurrentUseAgrees:
            let overlapped = inFlight.enter()
            defer { inFlight.leave() }
            Thread.sleep(forTimeInterval: 0.0005)
            return overlapped ? "" : base.cacheKey(for: url)  // a shared buffer
        }
    }
}
