import Foundation
import ImageKernel
import ImageKernelConformance

/// What every decoder target does with one input: a whole decode, a thumbnail decode, and (for
/// coders that decode progressively) the same bytes fed in chunks of pseudo-random sizes.
///
/// Errors are the expected outcome for most inputs and are ignored; only a crash, a sanitizer
/// report, a leak or a hang (libFuzzer's `-timeout`) is a finding. The pixel limits keep one
/// input's work bounded, so the fuzzer's memory limit finds real bombs rather than large images.
public enum DecodeHarness {
    /// Limits for fuzzing: 16 megapixels, 64 frames, 64 megapixels of animation.
    public static func options(thumbnail: PixelSize? = nil) -> DecodeOptions {
        var options = DecodeOptions()
        options.pixelLimit = 16 << 20
        options.maxFrameCount = 64
        options.animationPixelLimit = 64 << 20
        options.thumbnailPixelSize = thumbnail
        return options
    }

    /// Runs the whole, thumbnail and chunked decodes of `data` with `coder`.
    public static func run(_ coder: some ImageCoder, _ data: Data) {
        _ = coder.canDecode(data)
        if let image = try? coder.decode(data, options: options()) {
            touch(image)
            reencodeMetadata(coder, image)
        }
        if let image = try? coder.decode(data, options: options(thumbnail: PixelSize(width: 37, height: 29))) { touch(image) }
        if let progressive = coder as? any ProgressiveImageCoder {
            feedInChunks(progressive, data)
        }
    }

    /// Writes the metadata a decode found (hostile as the input made it) back under every policy,
    /// on a small image, in the source's format, through the coder's own writer.
    static func reencodeMetadata(_ coder: some ImageCoder, _ image: Image) {
        guard !image.metadata.isEmpty, coder.canEncode(image.sourceFormat),
              var small = try? Image(width: 8, height: 8, pixelFormat: .rgb8, pixels: [UInt8](repeating: 200, count: 192))
        else { return }
        small.metadata = image.metadata
        small.orientation = image.orientation
        for policy in MetadataPolicy.allCases {
            if let data = try? coder.encode(small, as: image.sourceFormat, options: EncodeOptions(metadata: policy)),
               let back = try? coder.decode(data, options: options())
            {
                touch(back)
            }
        }
    }

    /// Feeds `data` to a progressive decoder in chunks whose sizes come from a generator seeded
    /// by the input (so a reproducer replays the same chunking), reading every preview.
    static func feedInChunks(_ coder: any ProgressiveImageCoder, _ data: Data) {
        let decoder = coder.makeProgressiveDecoder(options: options())
        var generator = SeededRandom(seed: UInt64(data.count) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(data.first ?? 0))
        var offset = data.startIndex
        while offset < data.endIndex {
            let size = 1 + Int(generator.next() % 4096)
            let end = min(data.endIndex, offset + size)
            do {
                if let preview = try decoder.append(data[offset..<end]) { touch(preview) }
            } catch {
                return
            }
            offset = end
        }
    }

    /// Checks the image's layout and reads every byte of it and of its frames, so a buffer
    /// shorter than it claims is reported here rather than by a later user.
    public static func touch(_ image: Image) {
        precondition(image.isConsistent, "an inconsistent image: \(image.width)x\(image.height), \(image.bytesPerRow) bytes per row, \(image.pixels.count) bytes")
        var sum: UInt8 = 0
        image.pixels.withUnsafeBytes { bytes in
            for byte in bytes { sum &+= byte }
        }
        blackHole(sum)
        for frame in image.frames { touch(frame.image) }
    }

    @inline(never)
    static func blackHole(_ value: UInt8) { _ = value }
}

/// The input libFuzzer hands a target, as `Data` (copied: the fuzzer owns its buffer).
public func fuzzInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Data {
    guard let start, count > 0 else { return Data() }
    return Data(bytes: start, count: count)
}
