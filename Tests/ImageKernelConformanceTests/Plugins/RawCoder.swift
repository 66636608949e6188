import Foundation
import ImageKernel
import ImageKernelConformance

/// A tiny lossless format of our own, so the coder suite can be proven on a coder that needs
/// no C library: `IKRAW1`, width and height (UInt32 big-endian), straight RGBA8 pixels, then an
/// FNV-1a checksum of the pixels (UInt32 big-endian).
struct RawCoder: ImageCoder {
    static let format = ImageFormat(rawValue: "ikraw")
    static let magic = Array("IKRAW1".utf8)
    static let headerSize = 14

    var name: String { "RawCoder" }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        let header = try Self.header(data, plugin: name)
        let overLimit = header.width * header.height > options.pixelLimit
        if overLimit {
            // Scales down (nearest neighbour, after reading every pixel) within the ceiling only.
            guard options.scaleDownLargeImages, options.pixelLimit > 0 else {
                throw error(.pixelLimitExceeded, "\(header.width)x\(header.height) is over the limit of \(options.pixelLimit) pixels")
            }
            try options.checkScaleDownSource(width: header.width, height: header.height, plugin: name)
        }
        let pixelBytes = header.width * header.height * 4
        guard data.count == Self.headerSize + pixelBytes + 4 else {
            throw error(.truncated, "expected \(Self.headerSize + pixelBytes + 4) bytes, got \(data.count)")
        }
        let pixels = [UInt8](data[data.startIndex + Self.headerSize..<data.startIndex + Self.headerSize + pixelBytes])
        guard Self.checksum(pixels) == Self.readUInt32(data, at: Self.headerSize + pixelBytes) else {
            throw error(.corruptData, "pixel checksum mismatch")
        }
        var image = try Image(width: header.width, height: header.height, pixelFormat: .rgba8, pixels: pixels, sourceFormat: Self.format)
        if let target = options.thumbnailPixelSize { image = Self.thumbnail(image, fitting: target) }
        if overLimit, image.width * image.height > options.pixelLimit {
            let scale = (Double(options.pixelLimit) / Double(image.width * image.height)).squareRoot()
            var (width, height) = (max(1, Int(Double(image.width) * scale)), max(1, Int(Double(image.height) * scale)))
            if width * height > options.pixelLimit { (width, height) = (max(1, options.pixelLimit / height), height) }
            if width * height > options.pixelLimit { height = max(1, options.pixelLimit / width) }
            guard width * height <= options.pixelLimit else {
                throw error(.pixelLimitExceeded, "\(header.width)x\(header.height) cannot be scaled within \(options.pixelLimit) pixels")
            }
            image = Self.scaled(image, width: width, height: height)
        }
        return image
    }

    func canEncode(_ format: ImageFormat) -> Bool { format == Self.format }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        guard canEncode(format) else {
            throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "cannot encode \(format)")
        }
        return Self.serialize(width: image.width, height: image.height, rgba: image.rgba8Pixels())
    }

    // MARK: Format

    static func serialize(width: Int, height: Int, rgba: [UInt8]) -> Data {
        var data = Data(magic)
        appendUInt32(&data, UInt32(width))
        appendUInt32(&data, UInt32(height))
        data.append(contentsOf: rgba)
        appendUInt32(&data, checksum(rgba))
        return data
    }

    static func header(_ data: Data, plugin: String) throws(ImageKernelError) -> (width: Int, height: Int) {
        guard data.starts(with: magic) else {
            throw ImageKernelError(stage: .decode, plugin: plugin, code: .corruptData, message: "not an IKRAW file")
        }
        guard data.count >= headerSize else {
            throw ImageKernelError(stage: .decode, plugin: plugin, code: .truncated, message: "header cut short")
        }
        let width = Int(readUInt32(data, at: 6)), height = Int(readUInt32(data, at: 10))
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else {
            throw ImageKernelError(stage: .decode, plugin: plugin, code: .corruptData, message: "bad size \(width)x\(height)")
        }
        return (width, height)
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
    }

    static func readUInt32(_ data: Data, at offset: Int) -> UInt32 {
        let start = data.startIndex + offset
        return data[start..<start + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func appendUInt32(_ data: inout Data, _ value: UInt32) {
        data.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
    }

    /// Nearest-neighbour scaling to the aspect-kept fit inside `target`, never up.
    static func thumbnail(_ image: Image, fitting target: PixelSize) -> Image {
        let size = PixelSize.thumbnail(of: PixelSize(width: image.width, height: image.height), fitting: target)
        guard size.width != image.width || size.height != image.height else { return image }
        return scaled(image, width: size.width, height: size.height)
    }

    static func scaled(_ image: Image, width: Int, height: Int) -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            let sourceY = y * image.height / height
            for x in 0..<width {
                let sourceX = x * image.width / width
                let from = sourceY * image.bytesPerRow + sourceX * 4, to = (y * width + x) * 4
                pixels[to..<to + 4] = image.pixels[from..<from + 4]
            }
        }
        var copy = image
        (copy.width, copy.height, copy.bytesPerRow, copy.pixels) = (width, height, width * 4, pixels)
        return copy
    }

    private func error(_ code: ImageKernelError.Code, _ message: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, plugin: name, code: code, message: message)
    }
}

/// Fixtures for the raw coder: gradients of several shapes, with their exact pixels.
enum RawFixtures {
    static func make(_ name: String, width: Int, height: Int) -> CoderFixture {
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for index in 0..<(width * height) {
            let (x, y) = (index % width, index / width)
            rgba[index * 4] = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1))
            rgba[index * 4 + 1] = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1))
            rgba[index * 4 + 2] = UInt8(truncatingIfNeeded: x ^ y)
            rgba[index * 4 + 3] = UInt8(truncatingIfNeeded: 128 + x + y)
        }
        return CoderFixture(
            name: name, data: RawCoder.serialize(width: width, height: height, rgba: rgba), format: RawCoder.format,
            width: width, height: height, pixelFormat: .rgba8, orientation: .up, rgba8Pixels: rgba)
    }

    static let all: [CoderFixture] = [
        make("one-pixel.ikraw", width: 1, height: 1),
        make("small.ikraw", width: 7, height: 5),
        make("landscape.ikraw", width: 64, height: 48),
        make("tall.ikraw", width: 3, height: 200),
    ]

    static let encodeTargets = [CoderConformance.EncodeTarget(format: RawCoder.format, isLossless: true)]
}
