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

    /// Whether a JPEG may take the planar path, which writes no profile and converts nothing:
    /// an untagged source, or one whose profile renders as sRGB while profiles are not kept.
    /// A tagged source goes to the RGB path, which converts it after the resize (or keeps its
    /// profile). Converting the planar path's output instead (planes to RGB at the output size,
    /// then the conversion) was measured as dearer: `bench-color`'s proxy model, in valgrind's
    /// instruction counts, gives +112 % over the untagged planar render against +84 % for the
    /// RGB path from a 400x300 source, and +19 % against +13 % from 1800x1200. Reading the
    /// markers costs microseconds; the verdict on a profile is cached by the converter.
    static func planesNeedNoColor(_ data: Data, limits: ProxyConfiguration) -> Bool {
        guard let profile = JPEGCoder.embeddedICCProfile(data) else { return true }
        return !limits.keepsColorProfile && converter.rendersAsSRGB(profile)
    }
}
