import Foundation
import ImageKernel

/// A tiny lossless test format: "IKRAW", width and height (UInt32 LE), alpha flag, then RGB8 or
/// RGBA8 rows. It can also "encode" as PNG or JPEG (it records the format and writes IKRAW bytes
/// behind a format tag), so the manager's re-encoding path can be observed.
final class RawCoder: ProgressiveImageCoder, Sendable {
    static let magic = Array("IKRAW".utf8)
    let name: String
    let encodedFormats = Locked<[ImageFormat]>([])
    let decodeCount = Locked(0)
    /// Progressive decoders that were fed a whole image (the full image decoded a second time).
    let progressiveCompletions = Locked(0)
    let lastOptions = Locked<DecodeOptions?>(nil)
    let encodable: Set<ImageFormat>

    init(name: String = "RawCoder", encodable: Set<ImageFormat> = [.png, .jpeg]) {
        self.name = name
        self.encodable = encodable
    }

    static func encode(_ image: Image) -> Data {
        let rgba = image.rgba8Pixels()
        let alpha = image.pixelFormat.hasAlpha
        var out = magic
        for v in [UInt32(image.width), UInt32(image.height)] { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        out.append(alpha ? 1 : 0)
        for i in stride(from: 0, to: rgba.count, by: 4) {
            out += rgba[i..<i + 3]
            if alpha { out.append(rgba[i + 3]) }
        }
        return Data(out)
    }

    static func makeImage(width: Int, height: Int, alpha: Bool = false, seed: UInt8 = 0) -> Image {
        let format: PixelFormat = alpha ? .rgba8 : .rgb8
        var pixels = [UInt8](repeating: 0, count: width * height * format.bytesPerPixel)
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: i &* 7 &+ Int(seed)) }
        return try! Image(width: width, height: height, pixelFormat: format, pixels: pixels)
    }

    static func data(width: Int, height: Int, alpha: Bool = false, seed: UInt8 = 0) -> Data {
        encode(makeImage(width: width, height: height, alpha: alpha, seed: seed))
    }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    struct Header { var width: Int; var height: Int; var alpha: Bool }

    static func header(_ data: Data) -> Header? {
        guard data.count >= 14, data.starts(with: magic) else { return nil }
        let bytes = [UInt8](data.prefix(14))
        func u32(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24 }
        return Header(width: u32(5), height: u32(9), alpha: bytes[13] == 1)
    }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        decodeCount.withLock { $0 += 1 }
        lastOptions.withLock { $0 = options }
        guard let h = Self.header(data), h.width > 0, h.height > 0 else {
            throw ImageKernelError(stage: .decode, plugin: name, code: .corruptData, message: "not IKRAW")
        }
        if h.width * h.height > options.pixelLimit {
            throw ImageKernelError(stage: .decode, plugin: name, code: .pixelLimitExceeded, message: "\(h.width)x\(h.height)")
        }
        let format: PixelFormat = h.alpha ? .rgba8 : .rgb8
        let needed = h.width * h.height * format.bytesPerPixel
        guard data.count >= 14 + needed else {
            throw ImageKernelError(stage: .decode, plugin: name, code: .truncated, message: "short pixel data")
        }
        var image = try Image(width: h.width, height: h.height, pixelFormat: format, pixels: [UInt8](data[(data.startIndex + 14)..<(data.startIndex + 14 + needed)]), scale: options.scale)
        if let box = options.thumbnailPixelSize { image = Self.shrink(image, toFit: box) }
        return image
    }

    /// Nearest-neighbour shrink keeping the aspect ratio.
    static func shrink(_ image: Image, toFit box: PixelSize) -> Image {
        let fit = PixelSize.thumbnail(of: PixelSize(width: image.width, height: image.height), fitting: box)
        let (w, h) = (fit.width, fit.height)
        if w == image.width && h == image.height { return image }
        let bpp = image.pixelFormat.bytesPerPixel
        var out = [UInt8](repeating: 0, count: w * h * bpp)
        for y in 0..<h {
            for x in 0..<w {
                let sx = x * image.width / w, sy = y * image.height / h
                for c in 0..<bpp { out[(y * w + x) * bpp + c] = image.pixels[sy * image.bytesPerRow + sx * bpp + c] }
            }
        }
        var copy = image
        copy.width = w; copy.height = h; copy.bytesPerRow = w * bpp; copy.pixels = out
        return copy
    }

    func canEncode(_ format: ImageFormat) -> Bool { encodable.contains(format) }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        guard canEncode(format) else {
            throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(format)")
        }
        encodedFormats.withLock { $0.append(format) }
        return Self.encode(image)
    }

    func makeProgressiveDecoder(options: DecodeOptions) -> any ProgressiveImageDecoder {
        RawProgressiveDecoder(completions: progressiveCompletions)
    }
}

/// Previews: the rows received so far, the rest black.
final class RawProgressiveDecoder: ProgressiveImageDecoder {
    private var data = Data()
    private var rowsShown = 0
    private let completions: Locked<Int>

    init(completions: Locked<Int> = Locked(0)) { self.completions = completions }

    func append(_ chunk: Data) throws(ImageKernelError) -> Image? {
        data.append(chunk)
        guard let h = RawCoder.header(data) else { return nil }
        let bpp = h.alpha ? 4 : 3
        let rows = min(h.height, max(0, data.count - 14) / (h.width * bpp))
        guard rows > rowsShown else { return nil }
        rowsShown = rows
        if rows == h.height { completions.withLock { $0 += 1 } }
        var pixels = [UInt8](repeating: 0, count: h.width * h.height * bpp)
        let available = rows * h.width * bpp
        pixels.replaceSubrange(0..<available, with: data[(data.startIndex + 14)..<(data.startIndex + 14 + available)])
        return try Image(width: h.width, height: h.height, pixelFormat: h.alpha ? .rgba8 : .rgb8, pixels: pixels, isPreview: rows < h.height)
    }
}
