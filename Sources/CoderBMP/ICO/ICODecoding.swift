import Foundation
import ImageKernel

/// Decodes an ICO or CUR file: the entry that best fits the request, or every entry as frames.
enum ICODecoding {
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, pngCoder: (any ImageCoder)?) throws(ImageKernelError) -> Image {
        let data = LittleEndianBytes(bytes: bytes)
        let directory = try ICODirectory(data)
        guard options.allPages && !options.firstFrameOnly && directory.entries.count > 1 else {
            let entry = directory.best(fitting: options.thumbnailPixelSize)
            return try BMPDecoding.thumbnail(decodeEntry(entry, data, options: options, pngCoder: pngCoder), options: options)
        }
        // Every entry kept is checked against the limits before any is decoded: all of them, or
        // with `keepFirst` the first `maxFrameCount` (the ones after them are never decoded).
        let overLimit = directory.entries.count > options.maxFrameCount
        if overLimit && (options.framesOverLimit == .fail || options.maxFrameCount < 1) {
            throw ImageKernelError(
                stage: .decode, plugin: BMPFailure.plugin, code: .pixelLimitExceeded,
                message: "ICO of \(directory.entries.count) entries is over the frame limit of \(options.maxFrameCount)")
        }
        let entries = directory.entries.prefix(overLimit ? options.maxFrameCount : directory.entries.count)
        var total = 0
        for entry in entries {
            try BMPFailure.checkPixels("ICO entry \(entry.index)", width: entry.width, height: entry.height, limit: options.pixelLimit)
            total += max(0, entry.pixelCount)
        }
        if entries.count > 1 && total > options.animationPixelLimit {
            throw ImageKernelError(
                stage: .decode, plugin: BMPFailure.plugin, code: .pixelLimitExceeded,
                message: "ICO of \(entries.count) entries and \(total) pixels is over the frame budget")
        }
        var frames: [ImageFrame] = []
        for entry in entries {
            frames.append(ImageFrame(image: try BMPDecoding.thumbnail(decodeEntry(entry, data, options: options, pngCoder: pngCoder), options: options), duration: 0))
        }
        return try Image(animating: frames, loopCount: nil)
    }

    private static func decodeEntry(
        _ entry: ICODirectory.Entry, _ data: LittleEndianBytes, options: DecodeOptions, pngCoder: (any ImageCoder)?
    ) throws(ImageKernelError) -> Image {
        guard let bytes = data.slice(entry.range.lowerBound, entry.range.count) else { throw BMPFailure.truncated("ICO entry \(entry.index) is cut short") }
        if entry.isPNG {
            // The IHDR size is checked here, before the PNG coder sees the entry.
            try BMPFailure.checkPixels("ICO entry \(entry.index) (PNG)", width: entry.width, height: entry.height, limit: options.pixelLimit)
            return try EmbeddedPNG.decode(bytes, what: "ICO entry \(entry.index)", pngCoder: pngCoder, options: options, sourceFormat: .ico)
        }
        let entryData = LittleEndianBytes(bytes: bytes)
        let header = try BMPHeader(entryData, infoOffset: 0, pixelOffset: nil, halveHeight: true)
        var image = try BMPDecoding.decodePixels(header, entryData, options: options, icoMask: true, pngCoder: pngCoder)
        image.iccProfile = header.iccProfile
        image.sourceFormat = .ico
        return image
    }
}
