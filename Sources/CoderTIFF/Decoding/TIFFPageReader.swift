import CTIFF
import ImageKernel

/// Reads one page: its tags (checked against the pixel limit before anything is allocated),
/// then its pixels through the path ``ctiff_read_page`` planned.
struct TIFFPageReader {
    let source: UnsafeMutablePointer<ctiff_source>
    let allocationLimit: Int64
    let options: DecodeOptions
    let coder: String

    /// The current directory's tags, refused when the page is over the pixel limit.
    func readTags(_ tif: OpaquePointer, index: Int) throws(ImageKernelError) -> ctiff_page {
        var page = ctiff_page()
        guard ctiff_read_page(tif, &page) == 1 else { throw TIFFFailure.libtiff(source.pointee.messages, what: "page \(index)", coder: coder) }
        let size = PixelSize(width: Int(page.width), height: Int(page.height))
        guard size.width > 0, size.height > 0 else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "TIFF page \(index) is \(size)")
        }
        guard size.width * size.height <= options.pixelLimit else {
            throw TIFFFailure.pixelLimit("page \(index)", size, limit: options.pixelLimit, coder: coder)
        }
        if page.sample_format == UInt16(SAMPLEFORMAT_IEEEFP) {
            throw TIFFFailure.unsupported("page \(index) has floating-point samples", coder: coder)
        }
        if page.out_bits == 16 && !options.preserve16Bit { page.out_bits = 8 }
        return page
    }

    /// The page's pixels, in stored order, with orientation and ICC profile attached; reduced to
    /// `target` by the kernel's area average when given (streamed strip by strip where the page
    /// is read directly, else after a full decode).
    func decode(_ tif: OpaquePointer, page: inout ctiff_page, index: Int, target: PixelSize? = nil) throws(ImageKernelError) -> Image {
        let (width, height) = (Int(page.width), Int(page.height))
        if let target, target != PixelSize(width: width, height: height) {
            guard page.path != CTIFF_PATH_RGBA else { return try decode(tif, page: &page, index: index).areaDownscaled(to: target) }
            let rowBytes = target.width * Int(page.out_channels) * Int(page.out_bits) / 8
            var ok = false
            let limit = allocationLimit
            let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * target.height) { buffer, count in
                ok = ctiff_read_direct_scaled(
                    tif, &page, buffer.baseAddress, rowBytes, UInt32(target.width), UInt32(target.height), limit) == 1
                count = ok ? rowBytes * target.height : 0
            }
            guard ok else { throw TIFFFailure.libtiff(source.pointee.messages, what: "page \(index)'s pixels", coder: coder) }
            return try image(page, pixels: pixels, size: target)
        }
        var pixels: [UInt8]
        var ok = false
        if page.path == CTIFF_PATH_RGBA {
            pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, count in
                ok = ctiff_read_rgba(tif, &page, buffer.baseAddress, &source.pointee.messages) == 1
                count = ok ? width * height * Int(page.out_channels) : 0
            }
        } else {
            let rowBytes = width * Int(page.out_channels) * Int(page.out_bits) / 8
            let limit = allocationLimit
            pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
                ok = ctiff_read_direct(tif, &page, buffer.baseAddress, rowBytes, limit) == 1
                count = ok ? rowBytes * height : 0
            }
        }
        guard ok else { throw TIFFFailure.libtiff(source.pointee.messages, what: "page \(index)'s pixels", coder: coder) }
        return try image(page, pixels: pixels, size: PixelSize(width: width, height: height))
    }

    private func image(_ page: ctiff_page, pixels: [UInt8], size: PixelSize) throws(ImageKernelError) -> Image {
        let layout: PixelFormat.Layout
        switch page.out_channels {
        case 1: layout = .gray
        case 2: layout = .grayAlpha
        case 3: layout = .rgb
        default: layout = .rgba
        }
        let icc = page.icc.map { Array(UnsafeBufferPointer(start: $0, count: Int(page.icc_size))) }
        return try Image(
            width: size.width, height: size.height, pixelFormat: PixelFormat(layout: layout, bitsPerComponent: Int(page.out_bits)),
            pixels: pixels, orientation: ExifOrientation(rawValue: Int(page.orientation)) ?? .up, iccProfile: icc,
            sourceFormat: .tiff, scale: options.scale)
    }
}
