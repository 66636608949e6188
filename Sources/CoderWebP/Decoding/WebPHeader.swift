import CWebP
import Foundation
import ImageKernel

/// What the RIFF header and `WebPGetFeatures` say about a file, read before any pixel is decoded.
struct WebPHeader {
    /// Canvas size (the VP8X canvas for extended files).
    var size: PixelSize
    var hasAlpha: Bool
    var isAnimated: Bool
    /// A VP8L (lossless) bitstream: its pixels are always ARGB, whatever the `alpha_is_used` hint.
    var isLossless: Bool
    /// VP8X flags: an ICCP, EXIF or XMP chunk is present.
    var hasICC: Bool
    var hasEXIF: Bool
    var hasXMP: Bool
    /// Whether a chunk the decoders read besides the bitstream is present.
    var hasMetadata: Bool { hasICC || hasEXIF || hasXMP }

    /// Reads the header, or throws the kernel's error for data that is not a complete WebP header.
    init(_ bytes: UnsafeRawBufferPointer, coder: String) throws(ImageKernelError) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .truncated, message: "libwebp: no data")
        }
        var features = WebPBitstreamFeatures()
        let status = cwebp_get_features(base, bytes.count, &features)
        guard status == VP8_STATUS_OK else { throw WebPFailure.decode(status, coder: coder, what: "reading the header") }
        guard features.width > 0, features.height > 0 else { throw WebPFailure.corrupt("empty canvas", coder: coder) }
        size = PixelSize(width: Int(features.width), height: Int(features.height))
        hasAlpha = features.has_alpha != 0
        isAnimated = features.has_animation != 0
        isLossless = features.format == 2
        let extended = bytes.count >= 21 && bytes[12] == 0x56 && bytes[13] == 0x50 && bytes[14] == 0x38 && bytes[15] == 0x58  // "VP8X"
        let flags = extended ? bytes[20] : 0
        hasICC = flags & 0x20 != 0
        hasEXIF = flags & 0x08 != 0
        hasXMP = flags & 0x04 != 0
    }

    /// The kernel format a still decode produces: RGBA where the file may hold alpha (any
    /// lossless bitstream, since the lossless spec decodes ARGB and the `alpha_is_used` hint
    /// must not change decoding), else RGB.
    var stillPixelFormat: PixelFormat { hasAlpha || isLossless ? .rgba8 : .rgb8 }
}

/// ICC profile, EXIF (and its orientation) and XMP from a VP8X file's ICCP, EXIF and XMP chunks.
struct WebPMetadata {
    var iccProfile: [UInt8]?
    var orientation: ExifOrientation = .up
    /// EXIF (without a leading `Exif\0\0`, which some writers put in the chunk) and XMP.
    var blocks = ImageMetadata()

    init() {}

    init(_ bytes: UnsafeRawBufferPointer, header: WebPHeader) {
        guard header.hasMetadata, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let demuxer = cwebp_demux(base, bytes.count)
        else { return }
        defer { WebPDemuxDelete(demuxer) }
        iccProfile = Self.chunk("ICCP", demuxer)
        let exif = Self.chunk("EXIF", demuxer)
        orientation = exif.flatMap(ExifOrientation.init(tiff:)) ?? .up
        let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
        blocks.exif = exif.map { $0.starts(with: exifHeader) ? Array($0.dropFirst(exifHeader.count)) : $0 }
        blocks.xmp = Self.chunk("XMP ", demuxer)
    }

    private static func chunk(_ fourCC: String, _ demuxer: OpaquePointer) -> [UInt8]? {
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, fourCC, 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let start = iterator.chunk.bytes, iterator.chunk.size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: start, count: iterator.chunk.size))
    }
}

extension DecodeOptions {
    /// The size a still decode delivers: the thumbnail size, or for an image over the pixel limit
    /// with ``scaleDownLargeImages`` the largest size of the same aspect ratio within the limit.
    /// Throws `pixelLimitExceeded` when the image is over the limit and may not be scaled down, or
    /// is over the scale-down ceiling (libwebp's scaler still decodes every source row).
    func webpOutputSize(for size: PixelSize, coder: String) throws(ImageKernelError) -> PixelSize {
        var target = thumbnailPixelSize.map { PixelSize.thumbnail(of: size, fitting: $0) } ?? size
        if size.width * size.height > pixelLimit {
            guard scaleDownLargeImages, pixelLimit > 0 else { throw WebPFailure.pixelLimit(size, limit: pixelLimit, coder: coder) }
            try checkScaleDownSource(width: size.width, height: size.height, plugin: coder)
            let factor = (Double(pixelLimit) / Double(size.width * size.height)).squareRoot()
            let limited = PixelSize(
                width: max(1, Int(Double(size.width) * factor)), height: max(1, Int(Double(size.height) * factor)))
            if limited.width * limited.height < target.width * target.height { target = limited }
        }
        return target
    }
}
