import CLCMS
import CoderHEIF
import CoderJPEG
import CoderWebP
import ColorLCMS
import Foundation
import ImageKernel
import Testing

/// The floor a lossy output pays for keeping a wide-gamut profile: the photo in Adobe RGB,
/// ProPhoto or Display P3, encoded lossy with its profile, decoded and shown as a colour-managed
/// viewer shows it (converted to sRGB by lcms), against the same encode of the untagged sRGB
/// photo. Both carry the codec's loss; the tagged one carries it in a wider space, where one
/// 8-bit step spans more colour, so its error in sRGB is larger. Measured here and bounded.
@Suite("Lossy outputs that keep a wide-gamut profile")
struct LossyFloorTests {
    let converter = LCMSColorConverter()

    static func encoder(_ format: String) -> (any ImageCoder, ImageFormat) {
        switch format {
        case "jpeg": (JPEGCoder(), .jpeg)
        case "webp": (WebPCoder(), .webp)
        default: (HEIFCoder(), .avif)
        }
    }

    /// Mean |Δ| against the photo after a lossy round trip at quality 0.9, shown in sRGB.
    func shownError(_ image: Image, photo: Image, format: String) throws -> Double {
        let (coder, imageFormat) = Self.encoder(format)
        let encoded = try coder.encode(image, as: imageFormat, options: EncodeOptions(quality: 0.9))
        let decoded = try coder.decode(encoded, options: DecodeOptions())
        #expect(decoded.iccProfile == image.iccProfile, "the \(format) output keeps the profile")
        let shown = converter.needsConversion(decoded, for: .sRGB) ? try converter.convert(decoded, .sRGB) : decoded
        return difference(shown.convertedToRGBA8().rgba8Pixels(), photo.convertedToRGBA8().rgba8Pixels()).mean
    }

    @Test("the floor per format and space, bounded", arguments: ["jpeg", "webp", "avif"])
    func floor(format: String) throws {
        let photo = try ConversionTests.photo()
        let untagged = try shownError(photo, photo: photo, format: format)
        var report = "\(format) q90: untagged sRGB \(String(format: "%.2f", untagged))"
        for (space, profile) in [("Adobe RGB", try Reference.adobeRGB()), ("Display P3", try Reference.displayP3()), ("ProPhoto", try Reference.proPhoto())] {
            let tagged = try ConversionTests.tagged(photo, profile)
            let error = try shownError(tagged, photo: photo, format: format)
            report += "; \(space) \(String(format: "%.2f", error)) (+\(String(format: "%.2f", error - untagged)))"
            // The floor: at most 3 levels in all and at most 1 above the untagged encode's own
            // loss. Measured: 1.3–2.3 in all, +0.08 (P3) to +0.42 (ProPhoto, the widest).
            #expect(error <= 3, "\(space) in \(format): \(error)")
            #expect(error - untagged <= 1, "\(space) in \(format): \(error) against \(untagged) untagged")
        }
        print(report)
    }
}
