import CoderJPEG
import ColorLCMS
import Foundation
import ImageKernel
import Transformers

/// The proxy's colour handling (``ProxyConfiguration/keepsColorProfile``): by default every
/// result is sRGB with no profile, converted by lcms2 from the source's ICC profile or CICP
/// description; with `keepsColorProfile` the description is kept and the pixels untouched.
enum ColorPolicy {
    /// One converter for the process: it caches profiles and transforms, and an image service
    /// sees the same few profiles all day.
    static let converter = LCMSColorConverter()

    /// The decoded source as the policy wants it: converted to sRGB (an sRGB profile only
    /// dropped), or as decoded when profiles are kept. A description lcms cannot use (a broken
    /// or lying profile, unknown code points) is dropped and the pixels served as sRGB, as
    /// browsers show such a file: the image is still worth serving.
    static func apply(_ image: Image, limits: ProxyConfiguration) -> Image {
        guard !limits.keepsColorProfile else { return image }
        do {
            return try ColorConversionTransformer(converter: converter, conversion: .sRGB).transform(image)
        } catch {
            var untagged = image
            untagged.iccProfile = nil
            untagged.cicp = nil
            for index in untagged.frames.indices {
                untagged.frames[index].image.iccProfile = nil
                untagged.frames[index].image.cicp = nil
            }
            return untagged
        }
    }

    /// Whether the spec's steps only move, drop or mask pixels (resize, crop, flip, orient, round
    /// corners), so converting their result equals converting their source up to resampling:
    /// then the conversion runs on the (usually far smaller) result. Steps that bring colours of
    /// their own (tint, rotation fill, grayscale) or filter them (blur, sharpen) convert first.
    static func convertsAfter(_ spec: TransformSpec?) -> Bool {
        guard let steps = spec?.steps else { return true }
        return steps.allSatisfy { $0 is ResizeTransformer || $0 is CropTransformer || $0 is FlipTransformer || $0 is OrientTransformer || $0 is RoundCornersTransformer }
    }

    /// What the planar path must do about colour for a JPEG source, or nil when it may not take
    /// it. Nothing for an untagged source, or one whose profile renders as sRGB while profiles are
    /// not kept (the planar path writes no profile). The planes converted after the resize
    /// (``LCMSColorConverter/convertPlanes(_:_:)``) when the profile takes the converter's direct
    /// matrix/shaper path (Display P3, Adobe RGB, ProPhoto, …): measured in `bench-color
    /// --direct-only` (thread CPU, interleaved, busy machine), a Display P3 400x300 source to
    /// fill 300x200 costs 1.26–1.34x an untagged one this way (1.19x in instructions), against
    /// 1.5–1.6x before the planes conversion was staged and vectorised, and about 1.7x on the RGB
    /// path with the direct conversion, 2.5x with lcms's. Any other profile, or a kept one, takes the RGB
    /// path, which converts after the resize through lcms (or keeps the profile). Reading the
    /// markers costs microseconds; the verdicts on a profile are cached by the converter.
    static func planarColor(_ data: Data, limits: ProxyConfiguration) -> PlanarColor? {
        guard let profile = JPEGCoder.embeddedICCProfile(data) else { return PlanarColor.none }
        guard !limits.keepsColorProfile else { return nil }
        if converter.rendersAsSRGB(profile) { return PlanarColor.none }
        return converter.takesDirectPath(profile, .sRGB) ? .convertPlanes : nil
    }

    /// The planar path's colour work (``planarColor(_:limits:)``).
    enum PlanarColor {
        /// Nothing to convert.
        case none
        /// The resized planes go through ``convertPlanes(_:)``.
        case convertPlanes
    }

    /// Resized planes converted to sRGB, untagged; nil when the direct path does not take their
    /// profile after all (then the render takes the RGB path).
    static func convertPlanes(_ planes: YCbCrImage) throws(ImageKernelError) -> YCbCrImage? {
        try converter.convertPlanes(planes, .sRGB)
    }
}
