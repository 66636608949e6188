import Foundation
import ImageKernel

/// PNG data inside an ICO entry or a BI_PNG bitmap, decoded by the injected PNG coder. Its
/// errors are re-thrown as CoderBMP's (same code, the PNG coder's error as the cause).
enum EmbeddedPNG {
    static func decode(
        _ bytes: UnsafeRawBufferPointer, what: String, pngCoder: (any ImageCoder)?, options: DecodeOptions, sourceFormat: ImageFormat
    ) throws(ImageKernelError) -> Image {
        guard let pngCoder else {
            throw BMPFailure.unsupported("\(what) is a PNG and no PNG coder was given (BMPCoder(pngCoder:))")
        }
        do {
            var image = try pngCoder.decode(Data(bytes), options: DecodeOptions(pixelLimit: options.pixelLimit, scale: options.scale))
            image.sourceFormat = sourceFormat
            return image
        } catch {
            throw ImageKernelError(
                stage: .decode, plugin: BMPFailure.plugin, code: error.code, message: "\(what) (PNG): \(error.message)", cause: error)
        }
    }
}
