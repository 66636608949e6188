import Foundation
import ImageKernel

/// The output format of a request: the one it names, else the best one `Accept` allows that a
/// coder can encode (AVIF, then WebP, then JPEG XL; WebP first for an animated source, which AVIF
/// cannot carry here), else the source's when browsers show it (``webFormats``), else PNG for a
/// result with alpha and JPEG for one without: a TIFF, BMP, ICO or SVG source is never answered in
/// its own format unless the request names it.
enum OutputChoice: Sendable, Hashable {
    case format(ImageFormat)
    /// The encodable formats `Accept` allows, best first (never empty).
    case accepted([ImageFormat])
    case source
    /// imgproxy's preferred formats (`IMGPROXY_PREFERRED_FORMATS`, in order, default JPEG, PNG,
    /// GIF): the source's when it is one of them, else the first that can carry the result (an
    /// animation, alpha), else the first.
    case preferred([ImageFormat])
    /// imgproxy's `AVIF` and `JPEG XL` negotiation (`auto_*`/`enforce_*`): the format for a
    /// still result, the other choice for an animated one (imgproxy never answers an animation
    /// in either, even where a coder could).
    indirect case unlessAnimated(ImageFormat, otherwise: OutputChoice)

    /// imgproxy's default preferred formats.
    static let preferredFormats: [ImageFormat] = [.jpeg, .png, .gif]

    /// The formats that can carry alpha.
    static let alphaFormats: Set<ImageFormat> = [.png, .webp, .avif, .heic, .gif, .jxl, .tiff, .ico]

    /// The formats an animated result can take.
    static let animatable: Set<ImageFormat> = [.gif, .webp, .jxl]

    /// Every format a request may name (`f:`, `@`, `.`), when a registered coder encodes it.
    static let outputFormats: [ImageFormat] = [.jpeg, .png, .webp, .avif, .heic, .gif, .jxl, .tiff, .bmp, .ico]

    /// The formats `Accept` negotiation offers, best first.
    static let negotiable: [ImageFormat] = [.avif, .webp, .jxl]

    /// The source formats a result keeps when the request names none and `Accept` offers nothing
    /// better: those every browser (or, for HEIC, the platform that sent it) shows.
    static let webFormats: Set<ImageFormat> = [.jpeg, .png, .webp, .avif, .heic, .gif]

    var keyPart: String {
        switch self {
        case .format(let format): format.rawValue
        case .accepted(let formats): "accept:" + formats.map(\.rawValue).joined(separator: "+")
        case .source: "source"
        case .preferred(let formats): formats == Self.preferredFormats ? "preferred" : "preferred:" + formats.map(\.rawValue).joined(separator: "+")
        case .unlessAnimated(let format, let otherwise): format.rawValue + "-still>" + otherwise.keyPart
        }
    }

    /// The choice for an `Accept` header, among the formats `encodable`.
    static func negotiate(accept: String?, encodable: Set<ImageFormat>) -> OutputChoice {
        guard let accept else { return .source }
        let accepted = acceptedMediaTypes(accept)
        let formats = negotiable.filter { encodable.contains($0) && accepted.contains($0.mediaType) }
        return formats.isEmpty ? .source : .accepted(formats)
    }

    /// Whether the result may keep a `sourceFormat` source's animation.
    func mayAnimate(_ sourceFormat: ImageFormat, encodable: Set<ImageFormat>) -> Bool {
        switch self {
        case .format(let format): Self.animatable.contains(format)
        case .accepted(let formats): formats.contains(.webp) || (Self.animatable.contains(sourceFormat) && encodable.contains(sourceFormat))
        case .source: Self.animatable.contains(sourceFormat) && encodable.contains(sourceFormat)
        case .preferred(let formats):
            formats.contains(sourceFormat) ? Self.animatable.contains(sourceFormat) && encodable.contains(sourceFormat)
                : formats.contains { Self.animatable.contains($0) && encodable.contains($0) }
        case .unlessAnimated(_, let otherwise): otherwise.mayAnimate(sourceFormat, encodable: encodable)
        }
    }

    /// The format to encode a result in: for an animated result, one that keeps the animation
    /// where the choice allows one.
    func resolve(sourceFormat: ImageFormat, animated: Bool, hasAlpha: Bool, encodable: Set<ImageFormat>) -> ImageFormat {
        let keepsSource = encodable.contains(sourceFormat) && Self.webFormats.contains(sourceFormat)
        let sourceOrFallback = keepsSource ? sourceFormat : (hasAlpha ? .png : .jpeg)
        switch self {
        case .format(let format):
            return format
        case .accepted(let formats):
            if animated {
                if let moving = formats.first(where: Self.animatable.contains) { return moving }
                if Self.animatable.contains(sourceOrFallback) { return sourceOrFallback }
            }
            return formats[0]
        case .source:
            return sourceOrFallback
        case .preferred(let listed):
            // imgproxy's determineOutputFormat: the source's format when listed, else the first
            // listed that carries the animation and the alpha, else the first listed.
            let formats = listed.filter(encodable.contains)
            if formats.contains(sourceFormat) { return sourceFormat }
            let fits = formats.first { format in (!animated || Self.animatable.contains(format)) && (!hasAlpha || Self.alphaFormats.contains(format)) }
            return fits ?? formats.first ?? (hasAlpha ? .png : .jpeg)
        case .unlessAnimated(let format, let otherwise):
            return animated ? otherwise.resolve(sourceFormat: sourceFormat, animated: true, hasAlpha: hasAlpha, encodable: encodable) : format
        }
    }

    /// The media types `Accept` lists with a quality above zero (parameters dropped).
    static func acceptedMediaTypes(_ accept: String) -> Set<String> {
        var types = Set<String>()
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let compact = parameter.filter { $0 != " " }
                guard compact.hasPrefix("q="), let q = Double(compact.dropFirst(2)) else { return false }
                return q <= 0
            }
            if !refused { types.insert(type) }
        }
        return types
    }
}
