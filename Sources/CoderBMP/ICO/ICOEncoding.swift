import Foundation
import ImageKernel

/// Writes ICO files: one entry per size, PNG entries through the injected PNG coder, else BMP entries.
enum ICOEncoding {
    static func encode(_ image: Image, sizes: [Int], pngCoder: (any ImageCoder)?, options: EncodeOptions) throws(ImageKernelError) -> Data {
        guard image.isConsistent else {
            throw ImageKernelError(stage: .encode, plugin: BMPFailure.plugin, code: .invalidArgument, message: "image fields do not describe its buffer")
        }
        var source = image.convertedToRGBA8()
        source.frames = []
        var entries: [Image] = []
        for box in entryBoxes(for: PixelSize(width: image.width, height: image.height), sizes: sizes) {
            let size = PixelSize.thumbnail(of: PixelSize(width: source.width, height: source.height), fitting: PixelSize(width: box, height: box))
            entries.append(size.width == source.width && size.height == source.height ? source : try source.areaDownscaled(to: size))
        }
        var payloads: [[UInt8]] = []
        for entry in entries {
            if let pngCoder {
                payloads.append([UInt8](try pngCoder.encode(entry, as: .png, options: options)))
            } else {
                payloads.append(try BMPEncoding.encodeICOEntry(entry))
            }
        }
        var out = ByteWriter()
        out.u16(0); out.u16(1); out.u16(entries.count)
        var offset = 6 + 16 * entries.count
        for (entry, payload) in zip(entries, payloads) {
            out.u8(entry.width >= 256 ? 0 : UInt8(entry.width))
            out.u8(entry.height >= 256 ? 0 : UInt8(entry.height))
            out.u8(0); out.u8(0)
            out.u16(1); out.u16(32)
            out.u32(payload.count); out.u32(offset)
            offset += payload.count
        }
        for payload in payloads { out.bytes.append(contentsOf: payload) }
        return Data(out.bytes)
    }

    /// The boxes to write, smallest first: each of `sizes` (at most 256) below the image's
    /// longer side, then the image itself fitted into 256 (never enlarged).
    static func entryBoxes(for size: PixelSize, sizes: [Int]) -> [Int] {
        let longest = min(256, max(size.width, size.height))
        return Set(sizes.filter { $0 > 0 && $0 < longest } + [longest]).sorted()
    }
}
