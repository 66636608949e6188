import Foundation
import ImageKernel
import Transformers

/// imgproxy's `preserve_hdr` (`IMGPROXY_PRESERVE_HDR`): a source of more than 8 bits per sample
/// (16-bit PNG or TIFF, 10/12-bit HEIF, deep JPEG XL) keeps 16 bits through the decode
/// (``DecodeOptions/preserve16Bit``), the transforms and the encode when the result's format can
/// carry them (``formats``); gray stays gray. Otherwise, and by default, the result is 8-bit: the
/// decode keeps the high byte of each sample, as it always has.
///
/// As in imgproxy, whether the result is deep is settled before the transforms, from the format
/// the result will take for the decoded image (its alpha decides between PNG and JPEG where the
/// request names no format); a deep image bound for a format without depth is narrowed right after
/// the decode, so it is processed exactly as an 8-bit decode would be.
enum HDRPolicy {
    /// The output formats whose encoders here write 16 bits per sample: imgproxy's `SupportsHDR`
    /// (PNG, TIFF, AVIF, JPEG XL) without AVIF, which the HEIF encoder writes at 8 bits.
    static let formats: Set<ImageFormat> = [.png, .tiff, .jxl]

    /// Whether the request asks for `preserve_hdr` (the URL's, or the service's default applied to it).
    static func preserves(_ spec: TransformSpec?) -> Bool {
        (spec?.steps.first as? ImgproxyTransformer)?.options.preserveHDR == true
    }

    /// Whether the source is decoded with 16 bits kept: the request preserves HDR and the result
    /// may take a format in ``formats`` (with or without alpha).
    static func decodesDeep(_ spec: TransformSpec?, choice: OutputChoice, sourceFormat: ImageFormat, encodable: Set<ImageFormat>) -> Bool {
        guard preserves(spec) else { return false }
        return [false, true].contains { alpha in
            formats.contains(choice.resolve(sourceFormat: sourceFormat, animated: false, hasAlpha: alpha, encodable: encodable))
        }
    }

    /// The decoded source as the render processes it: narrowed to 8 bits unless the request
    /// preserves HDR and the format the result takes for it (by its alpha) keeps depth.
    static func settled(_ decoded: Image, spec: TransformSpec?, choice: OutputChoice, sourceFormat: ImageFormat, encodable: Set<ImageFormat>) -> Image {
        guard decoded.pixelFormat.bitsPerComponent == 16 else { return decoded }
        let format = choice.resolve(sourceFormat: sourceFormat, animated: decoded.isAnimated, hasAlpha: decoded.pixelFormat.hasAlpha, encodable: encodable)
        return fitted(decoded, to: format, preserving: preserves(spec))
    }

    /// `image` as a `format` result takes it: as it is when it is 8-bit or `preserving` and the
    /// format keeps depth, else narrowed to 8 bits per sample (every frame).
    static func fitted(_ image: Image, to format: ImageFormat, preserving: Bool) -> Image {
        guard image.pixelFormat.bitsPerComponent == 16, !(preserving && formats.contains(format)) else { return image }
        return image.narrowedTo8Bit()
    }
}

extension Image {
    /// The image at 8 bits per sample, layout and premultiplication kept: each 16-bit sample's
    /// high byte, as the decoders narrow (libpng's `strip_16`). Frames are narrowed too.
    func narrowedTo8Bit() -> Image {
        guard pixelFormat.bitsPerComponent == 16, isConsistent else { return self }
        let format = pixelFormat
        let samples = width * format.channelCount
        var narrow = [UInt8](repeating: 0, count: samples * height)
        pixels.withUnsafeBytes { source in
            narrow.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let row = y * bytesPerRow, start = y * samples
                    for i in 0..<samples {
                        out[start + i] = UInt8(truncatingIfNeeded: source.loadUnaligned(fromByteOffset: row + 2 * i, as: UInt16.self) >> 8)
                    }
                }
            }
        }
        var copy = self
        copy.pixels = narrow
        copy.pixelFormat = PixelFormat(layout: format.layout, bitsPerComponent: 8, isPremultiplied: format.isPremultiplied)
        copy.bytesPerRow = samples
        copy.frames = frames.map { ImageFrame(image: $0.image.narrowedTo8Bit(), duration: $0.duration) }
        return copy
    }

    /// A gray (or gray and alpha) image as RGB (or RGBA) of the same depth, the sample copied to
    /// each colour channel; any other image as it is. imgproxy composites a coloured watermark
    /// over a gray image in colour (sRGB, or RGB16 for a 16-bit image).
    func promotedToColor() -> Image {
        let format = pixelFormat
        guard format.layout == .gray || format.layout == .grayAlpha, isConsistent else { return self }
        let bytes = format.bytesPerSample, inChannels = format.channelCount, hasAlpha = format.hasAlpha
        let outChannels = hasAlpha ? 4 : 3
        let outRow = width * outChannels * bytes
        var color = [UInt8](repeating: 0, count: outRow * height)
        pixels.withUnsafeBytes { source in
            color.withUnsafeMutableBytes { out in
                for y in 0..<height {
                    for x in 0..<width {
                        let from = y * bytesPerRow + x * inChannels * bytes, to = y * outRow + x * outChannels * bytes
                        for c in 0..<3 {
                            for b in 0..<bytes { out[to + c * bytes + b] = source[from + b] }
                        }
                        if hasAlpha {
                            for b in 0..<bytes { out[to + 3 * bytes + b] = source[from + bytes + b] }
                        }
                    }
                }
            }
        }
        var copy = self
        copy.pixels = color
        copy.pixelFormat = PixelFormat(layout: hasAlpha ? .rgba : .rgb, bitsPerComponent: format.bitsPerComponent, isPremultiplied: format.isPremultiplied)
        copy.bytesPerRow = outRow
        return copy
    }
}
