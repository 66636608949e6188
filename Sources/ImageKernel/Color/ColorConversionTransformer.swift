/// Colour management as a step of a transform chain: converts an image to a conversion's target
/// through a ``ColorConverter``, and leaves the pixels of images that need nothing (untagged
/// sRGB for an sRGB target) as they are.
///
/// The manager puts it first in the chain when ``ImageContext/colorConversion`` (or the
/// configuration's) is set, so colour-managed results are cached under their own key.
public struct ColorConversionTransformer: ImageTransformer {
    public let converter: any ColorConverter
    public let conversion: ColorConversion

    public init(converter: any ColorConverter, conversion: ColorConversion = .sRGB) {
        self.converter = converter
        self.conversion = conversion
    }

    public var key: String { conversion.key }

    /// The converted image; one that needs no conversion for an sRGB target (an sRGB profile
    /// or sRGB code points) loses its description, which says nothing more than none does.
    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        guard converter.needsConversion(image, for: conversion) else {
            guard conversion.target == .sRGB, image.iccProfile != nil || image.cicp != nil else { return image }
            var untagged = image
            untagged.iccProfile = nil
            untagged.cicp = nil
            return untagged
        }
        return try converter.convert(image, conversion)
    }
}
