import Foundation
import ImageKernel

/// A third-party coder for binary PPM (`P6`) and PGM (`P5`) files, 8-bit only: what a plugin
/// author writes to teach ImageKernel a new format.
struct PPMCoder: ImageCoder {
    let name = "PPMCoder"
    static let format = ImageFormat(rawValue: "ppm")

    func canDecode(_ data: Data) -> Bool {
        data.count >= 2 && data[data.startIndex] == UInt8(ascii: "P") && [UInt8(ascii: "5"), UInt8(ascii: "6")].contains(data[data.startIndex + 1])
    }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        let bytes = [UInt8](data)
        var index = 2
        func fail(_ code: ImageKernelError.Code, _ message: String) -> ImageKernelError {
            ImageKernelError(stage: .decode, plugin: name, code: code, message: message)
        }
        func number() throws(ImageKernelError) -> Int {
            while index < bytes.count, bytes[index] == UInt8(ascii: "#") || bytes[index] <= 32 {
                if bytes[index] == UInt8(ascii: "#") { while index < bytes.count, bytes[index] != 10 { index += 1 } }
                index += 1
            }
            var value = 0, digits = 0
            while index < bytes.count, (48...57).contains(bytes[index]), digits < 9 {
                value = value * 10 + Int(bytes[index] - 48); index += 1; digits += 1
            }
            guard digits > 0 else { throw fail(.corruptData, "expected a number in the header") }
            return value
        }
        guard canDecode(data) else { throw fail(.corruptData, "not a binary PPM/PGM") }
        let gray = bytes[1] == UInt8(ascii: "5")
        let width = try number(), height = try number(), maxValue = try number()
        guard width > 0, height > 0, maxValue == 255 else { throw fail(.unsupported, "only 8-bit images with maxval 255") }
        guard width * height <= options.pixelLimit else { throw fail(.pixelLimitExceeded, "\(width)x\(height)") }
        index += 1
        let format: PixelFormat = gray ? .gray8 : .rgb8
        let count = width * height * format.bytesPerPixel
        guard bytes.count - index >= count else { throw fail(.truncated, "pixel data ends early") }
        var image = try Image(width: width, height: height, pixelFormat: format, pixels: Array(bytes[index..<index + count]), sourceFormat: Self.format)
        if let box = options.thumbnailPixelSize {
            let size = PixelSize.thumbnail(of: PixelSize(width: width, height: height), fitting: box)
            image = Self.nearest(image, to: size)
        }
        return image
    }

    func canEncode(_ format: ImageFormat) -> Bool { format == Self.format }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        guard canEncode(format) else { throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(format)") }
        let rgba = image.rgba8Pixels()
        var out = Data("P6\n\(image.width) \(image.height)\n255\n".utf8)
        out.reserveCapacity(out.count + image.width * image.height * 3)
        for i in stride(from: 0, to: rgba.count, by: 4) { out.append(contentsOf: rgba[i..<i + 3]) }
        return out
    }

    static func nearest(_ image: Image, to size: PixelSize) -> Image {
        guard size.width != image.width || size.height != image.height else { return image }
        let bpp = image.pixelFormat.bytesPerPixel
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * bpp)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let from = (y * image.height / size.height) * image.bytesPerRow + (x * image.width / size.width) * bpp
                for c in 0..<bpp { pixels[(y * size.width + x) * bpp + c] = image.pixels[from + c] }
            }
        }
        var copy = image
        copy.width = size.width; copy.height = size.height; copy.bytesPerRow = size.width * bpp; copy.pixels = pixels
        return copy
    }
}
