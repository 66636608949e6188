import Foundation
import ImageKernel
import ImageKernelConformance

/// The raw coder with one deliberate bug, chosen to break one case of the coder suite.
/// The switch is exhaustive: a new case does not compile until it has its bug here.
struct BrokenCoder: ImageCoder {
    let breaks: CoderConformance.Case
    private let base = RawCoder()
    private let inFlight = InFlight()

    init(breaking testCase: CoderConformance.Case) { breaks = testCase }

    var name: String { base.name }

    func canDecode(_ data: Data) -> Bool {
        switch breaks {
        case .sniffingAgreesWithDecode:
            return true  // claims everything
        case .sniffsFromLeadingBytes:
            // Validates the whole file instead of sniffing the leading bytes.
            return base.canDecode(data) && (try? base.decode(data, options: DecodeOptions())) != nil
        default:
            return base.canDecode(data)
        }
    }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        var options = options
        switch breaks {
        case .decodesEveryFixture:
            var image = try base.decode(data, options: options)
            image.sourceFormat = .unknown  // forgets to say what it decoded
            return image
        case .rejectsEmptyInput where data.isEmpty, .rejectsRandomInput where !base.canDecode(data) && data.count >= 7:
            return try Image(width: 1, height: 1, pixelFormat: .rgba8, pixels: [0, 0, 0, 0])  // a blank image for garbage
        case .rejectsTruncatedInput where base.canDecode(data) && data.count >= RawCoder.headerSize:
            // Pads a short file with zeros instead of refusing it.
            let header = try RawCoder.header(data, plugin: name)
            var pixels = [UInt8](data.dropFirst(RawCoder.headerSize).prefix(header.width * header.height * 4))
            pixels += [UInt8](repeating: 0, count: header.width * header.height * 4 - pixels.count)
            return try Image(width: header.width, height: header.height, pixelFormat: .rgba8, pixels: pixels, sourceFormat: RawCoder.format)
        case .survivesCorruptedInput:
            // Trusts its input: on a bad checksum it hands out an image whose rows overrun the buffer.
            do { return try base.decode(data, options: options) } catch where error.code == .corruptData && data.count > RawCoder.headerSize {
                var image = try Image(width: 1, height: 1, pixelFormat: .rgba8, pixels: [0, 0, 0, 0])
                image.bytesPerRow = 64
                return image
            }
        case .decodeErrorsNameStageAndPlugin:
            do { return try base.decode(data, options: options) } catch {
                var error = error
                error.plugin = nil  // does not say who failed
                throw error
            }
        case .thumbnailFitsRequestedSize:
            options.thumbnailPixelSize = nil  // ignores thumbnails
        case .refusesImagesOverPixelLimit:
            options.pixelLimit = DecodeOptions.defaultPixelLimit  // ignores the caller's limit
        case .refusesScaleDownPastCeiling:
            options.scaleDownSourcePixelLimit = .max  // scales down any source, however large
        case .concurrentUseAgrees:
            // Shares a scratch buffer between calls: an overlapping call scribbles on it.
            let overlapped = inFlight.enter()
            Thread.sleep(forTimeInterval: 0.001)
            defer { inFlight.leave() }
            var image = try base.decode(data, options: options)
            if overlapped || inFlight.count > 1 { image.pixels = [UInt8](repeating: 0, count: image.pixels.count) }
            return image
        default:
            break
        }
        return try base.decode(data, options: options)
    }

    func canEncode(_ format: ImageFormat) -> Bool {
        breaks == .refusesUnsupportedEncodeFormat ? true : base.canEncode(format)
    }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        switch breaks {
        case .refusesUnsupportedEncodeFormat:
            return try base.encode(image, as: RawCoder.format, options: options)  // writes its own format whatever was asked
        case .roundTripKeepsSize:
            // Writes width and height the wrong way round.
            return RawCoder.serialize(width: image.height, height: image.width, rgba: image.rgba8Pixels())
        case .roundTripKeepsPixels:
            // Reads the pixels as if rows had no padding.
            var tight = image
            tight.bytesPerRow = image.width * image.pixelFormat.bytesPerPixel
            tight.pixels = Array(image.pixels.prefix(tight.bytesPerRow * image.height))
            return try base.encode(tight, as: format, options: options)
        default:
            return try base.encode(image, as: format, options: options)
        }
    }
}

/// Counts calls in progress.
final class InFlight: Sendable {
    private let calls = Locked(0)

    /// Returns true when another call was already in progress.
    func enter() -> Bool {
        calls.withLock { count in
            count += 1
            return count > 1
        }
    }

    func leave() { calls.withLock { $0 -= 1 } }

    var count: Int { calls.withLock { $0 } }
}
