import Foundation
import ImageKernel

/// The decode path of ``HEIFCoder``: limits from the header, then the primary image or, for a
/// thumbnail, the smallest embedded thumbnail that covers the box, else a full decode averaged
/// down.
enum HEIFDecoding {
    static func decode(_ data: Data, options: DecodeOptions, threads: Int?, coder: String) throws(ImageKernelError) -> Image {
        guard !data.isEmpty else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .truncated, message: "no bytes to decode")
        }
        let limit = max(1, options.pixelLimit)
        // A side longer than the pixel limit is over it whatever the other side is; libheif then
        // refuses such an image, tile or grid before allocating it (never loosen its own default).
        let file = try HEIFFile(data, sideLimit: limit < 32768 ? limit : nil, threads: threads, coder: coder)
        let primary = try file.primaryImage()
        let size = primary.size
        guard size.width > 0, size.height > 0 else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "the primary image has no size")
        }
        if size.width * size.height > limit {
            throw HEIFFailure.pixelLimit("primary image", width: size.width, height: size.height, limit: limit, coder: coder)
        }
        let boxes = HEIFBoxScan.scan(data)
        try checkCodedSizes(boxes.declared, output: size, limit: limit, coder: coder)

        let box = options.thumbnailPixelSize.flatMap { $0.isEmpty ? nil : $0 }
        let target = box.map { PixelSize.thumbnail(of: size, fitting: $0) } ?? size
        let format = HEIFPixels.format(of: primary, preserve16Bit: options.preserve16Bit, monochrome: boxes.isMonochrome)
        var image: Image
        var source: String?
        if options.embeddedThumbnail, let thumbnail = largestThumbnail(of: primary) {
            // The stored thumbnail instead of the image; a box fits the thumbnail's own size.
            let thumbnailFormat = HEIFPixels.format(of: thumbnail, preserve16Bit: options.preserve16Bit, monochrome: boxes.isMonochrome)
            image = try HEIFPixels.decode(thumbnail, as: thumbnailFormat, coder: coder)
            source = "embedded"
        } else if target != size, let thumbnail = embeddedThumbnail(of: primary, covering: target, fullSize: size) {
            image = try HEIFPixels.decode(thumbnail, as: format, coder: coder)
            source = "embedded"
        } else {
            image = try HEIFPixels.decode(primary, as: format, coder: coder)
        }
        // The coded stream may be larger than `ispe` says (layered AV1): trust the decoded size.
        let decoded = PixelSize(width: image.width, height: image.height)
        if decoded.width * decoded.height > limit {
            throw HEIFFailure.pixelLimit("decoded image", width: decoded.width, height: decoded.height, limit: limit, coder: coder)
        }
        if let box {
            // An embedded thumbnail chosen to cover the box goes to the primary image's thumbnail
            // size; a full decode, or the thumbnail asked for, to its own.
            let final = source == "embedded" && !options.embeddedThumbnail ? target : PixelSize.thumbnail(of: decoded, fitting: box)
            if final != decoded {
                image = try image.areaDownscaled(to: final)
                source = source ?? "downscaled"
            }
        }
        image.sourceFormat = sniffedFormat(data)
        image.orientation = .up  // HEIF's transformations are applied; EXIF orientation is not applied again
        image.iccProfile = primary.iccProfile()
        image.cicp = primary.cicp()
        image.metadata = ImageMetadata(exif: primary.exif(), xmp: primary.xmp())
        image.scale = options.scale
        if let source { image.decoderNotes[Image.MetadataKey.thumbnailSource] = source }
        return image
    }

    /// Coded sizes (every `ispe`: images, tiles, thumbnails) and grid canvases are read from the
    /// boxes before libheif reads a grid or decodes anything. Each may exceed the limit only by
    /// the block padding coding needs (sides rounded up to 128, as AV1 superblocks and HEVC
    /// CTUs pad a cropped image); anything larger is refused before allocation.
    static func checkCodedSizes(_ declaredSizes: [HEIFBoxScan.Declared], output: PixelSize, limit: Int, coder: String) throws(ImageKernelError) {
        func padded(_ side: Int) -> Int { (side + 127) / 128 * 128 }
        let allowance = max(limit, padded(output.width) * padded(output.height))
        for declared in declaredSizes {
            let (w, h) = (declared.size.width, declared.size.height)
            let (area, overflow) = w.multipliedReportingOverflow(by: h)
            if overflow || area > allowance {
                throw HEIFFailure.pixelLimit(declared.what, width: w, height: h, limit: limit, coder: coder)
            }
        }
    }

    /// The smallest stored thumbnail at least as large as `target` on both sides with the primary
    /// image's aspect ratio (a thumbnail of another shape, say unrotated, is never used).
    static func embeddedThumbnail(of primary: HEIFImageHandle, covering target: PixelSize, fullSize: PixelSize) -> HEIFImageHandle? {
        primary.thumbnails()
            .filter { thumb in
                let s = thumb.size
                guard s.width >= target.width, s.height >= target.height, s.width < fullSize.width else { return false }
                // Same shape within rounding: each side within 2 px of what the other implies.
                let impliedHeight = Double(s.width) * Double(fullSize.height) / Double(fullSize.width)
                let impliedWidth = Double(s.height) * Double(fullSize.width) / Double(fullSize.height)
                return abs(impliedHeight - Double(s.height)) <= 2 || abs(impliedWidth - Double(s.width)) <= 2
            }
            .min { $0.size.width < $1.size.width }
    }

    /// The stored thumbnail with the most pixels (``DecodeOptions/embeddedThumbnail``), if any.
    static func largestThumbnail(of primary: HEIFImageHandle) -> HEIFImageHandle? {
        primary.thumbnails().max { $0.size.width * $0.size.height < $1.size.width * $1.size.height }
    }

    static func sniffedFormat(_ data: Data) -> ImageFormat {
        let format = ImageFormat.sniff(data.prefix(256))
        return [.heic, .heif, .avif].contains(format) ? format : .heif
    }
}
