import Foundation
import ImageKernel
import Transformers

/// The argument readers of imgproxy's option parser, with its rules: Go's `strconv` number and
/// boolean syntax, a bad boolean read as false, every other bad argument a 404 `Invalid URL`.
struct ImgproxyArguments {
    let name: String
    let args: [String]

    func invalidArgs() -> ProxyError { .imgproxyInvalidURL("Invalid \(name) arguments: \(args)") }

    func invalid(_ key: String, _ arg: String, expected: String? = nil) -> ProxyError {
        .imgproxyInvalidURL("Invalid \(key): \(arg)" + (expected.map { " (expected \($0))" } ?? ""))
    }

    func ensureMax(_ count: Int) throws(ProxyError) {
        guard args.count <= count else { throw invalidArgs() }
    }

    /// The only argument of a one-argument option.
    func single() throws(ProxyError) -> String {
        try ensureMax(1)
        return args[0]
    }

    /// Go's `strconv.ParseBool`; anything else is false (imgproxy logs a warning).
    static func bool(_ text: String) -> Bool {
        ["1", "t", "T", "TRUE", "true", "True"].contains(text)
    }

    /// Go's `strconv.Atoi`: optional sign and decimal digits.
    static func int(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) }) else { return nil }
        return Int(text.hasPrefix("+") ? String(text.dropFirst()) : text)
    }

    /// Go's `strconv.ParseFloat` for finite values.
    static func double(_ text: String) -> Double? {
        guard !text.isEmpty, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    func positiveInt(_ key: String, _ arg: String) throws(ProxyError) -> Int {
        guard let value = Self.int(arg), value >= 0 else { throw invalid(key, arg, expected: "positive number or 0") }
        return value
    }

    func positiveFloat(_ key: String, _ arg: String) throws(ProxyError) -> Double {
        guard let value = Self.double(arg), value >= 0 else { throw invalid(key, arg, expected: "positive number or 0") }
        return value
    }

    func positiveNonZeroFloat(_ key: String, _ arg: String) throws(ProxyError) -> Double {
        guard let value = Self.double(arg), value > 0 else { throw invalid(key, arg, expected: "positive number") }
        return value
    }

    func quality(_ key: String, _ arg: String) throws(ProxyError) -> Int {
        guard let value = Self.int(arg), (0...100).contains(value) else { throw invalid(key, arg, expected: "number in range 0-100") }
        return value
    }

    /// `RRGGBB` (imgproxy's `RGBFromHex`; also `RGB`), opaque.
    func hexColor(_ key: String, _ arg: String) throws(ProxyError) -> RGBAColor {
        var hex = arg
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6, let color = RGBAColor(hex: hex + "ff") else { throw invalid(key, arg, expected: "hex-encoded color") }
        return color
    }

    /// An image format by imgproxy's names (`jpg`, `jpeg`, `png`, `webp`, `avif`, …).
    func format(_ key: String, _ arg: String) throws(ProxyError) -> ImageFormat {
        guard let format = ImageFormat(fileExtension: arg.lowercased()) else { throw invalid(key, arg, expected: "supported image format") }
        return format
    }

    /// `TYPE[:X:Y]` for the gravity types `allowed` (imgproxy's `parseGravity`).
    func gravity(_ key: String, _ args: ArraySlice<String>, allowed: [ImgproxyOptions.GravityOption.Kind]) throws(ProxyError) -> ImgproxyOptions.GravityOption {
        guard let first = args.first, let kind = ImgproxyOptions.GravityOption.Kind(rawValue: first), allowed.contains(kind) else {
            throw invalid(key + ".type", args.first ?? "", expected: allowed.map(\.rawValue).joined(separator: ", "))
        }
        var gravity = ImgproxyOptions.GravityOption(kind)
        switch kind {
        case .sm:
            guard args.count == 1 else { throw invalidArgs() }
            return gravity
        case .fp:
            guard args.count == 3 else { throw invalidArgs() }
        default:
            guard args.count <= 3 else { throw invalidArgs() }
        }
        let values = Array(args.dropFirst())
        for (index, text) in values.enumerated() where !text.isEmpty {
            guard let value = Self.double(text), kind != .fp || (0...1).contains(value) else {
                throw invalid(key + (index == 0 ? ".x_offset" : ".y_offset"), text)
            }
            if index == 0 { gravity.x = value } else { gravity.y = value }
        }
        return gravity
    }
}

extension ImgproxyOptions.GravityOption.Kind {
    /// The types `gravity` and `crop` take.
    static let crop: [Self] = [.ce, .no, .so, .ea, .we, .noea, .nowe, .soea, .sowe, .sm, .fp]
    /// The types `extend` and `extend_aspect_ratio` take.
    static let extend: [Self] = [.ce, .no, .so, .ea, .we, .noea, .nowe, .soea, .sowe, .fp]
    /// The positions `watermark` takes.
    static let watermark: [Self] = [.ce, .no, .so, .ea, .we, .noea, .nowe, .soea, .sowe, .re]
}
