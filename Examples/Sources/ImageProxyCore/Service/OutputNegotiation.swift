import Foundation
import ImageKernel

/// The output format of a request: the one it names, else the best one `Accept` allows that a
/// coder can encode (AVIF, then WebP), else the source's.
enum OutputChoice: Sendable, Hashable {
    case format(ImageFormat)
    case source

    var keyPart: String {
        switch self {
        case .format(let format): format.rawValue
        case .source: "source"
        }
    }

    /// The choice for an `Accept` header, among the formats `encodable`.
    static func negotiate(accept: String?, encodable: Set<ImageFormat>) -> OutputChoice {
        guard let accept else { return .source }
        let accepted = acceptedMediaTypes(accept)
        for format in [ImageFormat.avif, .webp] where encodable.contains(format) && accepted.contains(format.mediaType) {
            return .format(format)
        }
        return .source
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
