import CWebP
import Foundation
import ImageKernel

/// Encodes an image and its ``Image/frames`` as an animated WebP with `WebPAnimEncoder`, which
/// crops each frame to what changed and picks blending and disposal itself.
enum WebPAnimationEncoding {
    static func encode(_ image: Image, options: EncodeOptions, coder: String) throws(ImageKernelError) -> Data {
        try WebPStillEncoding.checkSize(image, coder: coder)
        var settings = cwebp_encode_settings(options)
        guard let encoder = cwebp_anim_encoder_create(
            Int32(image.width), Int32(image.height), Int32(max(0, image.loopCount ?? 0)), &settings)
        else { throw WebPFailure.encode("cannot create the animation encoder", coder: coder) }
        defer { cwebp_anim_encoder_destroy(encoder) }
        var timestamp = 0
        for (index, frame) in image.allFrames.enumerated() {
            guard frame.image.width == image.width, frame.image.height == image.height else {
                throw WebPFailure.encode(
                    "frame \(index) is \(frame.image.width)x\(frame.image.height), not the canvas size \(image.width)x\(image.height)",
                    coder: coder, code: .invalidArgument)
            }
            let added = frame.image.rgba8Pixels().withUnsafeBufferPointer {
                cwebp_anim_encoder_add(encoder, $0.baseAddress, Int32(image.width * 4), Int32(timestamp))
            }
            guard added != 0 else { throw failure(encoder, "frame \(index)", coder: coder) }
            timestamp += max(0, Int((frame.duration * 1000).rounded()))
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard cwebp_anim_encoder_finish(encoder, Int32(timestamp), &output, &size) != 0, let output else {
            throw failure(encoder, "assembling", coder: coder)
        }
        defer { cwebp_free(output) }
        return Data(bytes: output, count: size)
    }

    private static func failure(_ encoder: OpaquePointer, _ what: String, coder: String) -> ImageKernelError {
        WebPFailure.encode("animation encoder failed at \(what): \(String(cString: cwebp_anim_encoder_error(encoder)))", coder: coder)
    }
}
