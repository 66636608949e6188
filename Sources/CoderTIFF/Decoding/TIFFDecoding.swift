import CTIFF
import Foundation
import ImageKernel

/// Decodes a TIFF: libtiff opens it from memory, the page's tags are read and checked against
/// the limits, then its pixels are read strip by strip or tile by tile (``TIFFPageReader``).
enum TIFFDecoding {
    /// Decoder note with libtiff's first warnings, when it had any.
    static let warningsNote = "tiff.warnings"
    /// Decoder note with the number of pages not returned as frames (other size or format).
    static let skippedPagesNote = "tiff.pages.skipped"

    static func decode(
        _ bytes: UnsafeRawBufferPointer, options: DecodeOptions, pages: TIFFCoder.Pages, coder: String
    ) throws(ImageKernelError) -> Image {
        guard ImageFormat.sniff(bytes) == .tiff else {
            throw ImageKernelError(
                stage: .decode, plugin: coder, code: bytes.count < 8 ? .truncated : .corruptData, message: "TIFF: no TIFF header")
        }
        let source = UnsafeMutablePointer<ctiff_source>.allocate(capacity: 1)
        source.initialize(to: ctiff_source())
        defer { source.deallocate() }
        source.pointee.data = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        source.pointee.size = UInt64(bytes.count)
        let reader = TIFFPageReader(source: source, allocationLimit: allocationLimit(options), options: options, coder: coder)
        guard let tif = ctiff_open_source(source, reader.allocationLimit) else {
            throw TIFFFailure.libtiff(source.pointee.messages, what: "header", coder: coder)
        }
        defer { TIFFClose(tif) }
        var page = try reader.readTags(tif, index: 0)
        let canvas = PixelSize(width: Int(page.width), height: Int(page.height))
        let wantsAll = (pages == .all || options.allPages) && !options.firstFrameOnly
        var pageCount = wantsAll ? Int(TIFFNumberOfDirectories(tif)) : 1
        if pageCount > 1 {
            // All pages, or the first `maxFrameCount` (`keepFirst`): the directories after them are never read.
            pageCount = try options.checkAnimationBudget(frameCount: pageCount, canvas: canvas, plugin: coder)
            guard TIFFSetDirectory(tif, 0) == 1 else { throw TIFFFailure.libtiff(source.pointee.messages, what: "page 0", coder: coder) }
            page = try reader.readTags(tif, index: 0)
        }
        let target = options.thumbnailPixelSize.map { PixelSize.thumbnail(of: canvas, fitting: $0) } ?? canvas
        var image = try reader.decode(tif, page: &page, index: 0, target: target)
        var frames: [ImageFrame] = []
        var skipped = 0
        for index in 1..<max(1, pageCount) {
            // The next directory in the chain (TIFFSetDirectory would walk from the first each time).
            guard TIFFReadDirectory(tif) == 1 else { break }
            var next = try reader.readTags(tif, index: index)
            let isReduced = next.subfile_type & UInt32(FILETYPE_REDUCEDIMAGE) != 0
            guard !isReduced, Int(next.width) == canvas.width, Int(next.height) == canvas.height else {
                skipped += 1
                continue
            }
            let frame = try reader.decode(tif, page: &next, index: index, target: target)
            guard frame.pixelFormat == image.pixelFormat else {
                skipped += 1
                continue
            }
            frames.append(ImageFrame(image: frame, duration: 0))
        }
        if skipped > 0 { image.decoderNotes[skippedPagesNote] = String(skipped) }
        let warnings = TIFFFailure.text(source.pointee.messages.warnings)
        if !warnings.isEmpty {
            let more = Int(source.pointee.messages.warning_count) - 4
            image.decoderNotes[warningsNote] = more > 0 ? "\(warnings); and \(more) more" : warnings
        }
        if target != canvas { image.decoderNotes[Image.MetadataKey.thumbnailSource] = "downscaled" }
        image.frames = frames
        return image
    }

    /// The most libtiff may allocate at once: enough for a strip the size of the largest image
    /// the pixel limit allows (4 samples of 16 bits), at least 16 MiB, at most 2 GiB.
    static func allocationLimit(_ options: DecodeOptions) -> Int64 {
        let (bytes, overflow) = max(0, options.pixelLimit).multipliedReportingOverflow(by: 8)
        return Int64(min(max(overflow ? Int.max : bytes, 16 << 20), 2 << 30))
    }
}
