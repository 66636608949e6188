/// An image file format. String-backed so plugins can name formats the kernel does not know.
public struct ImageFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let png = ImageFormat(rawValue: "png")
    public static let jpeg = ImageFormat(rawValue: "jpeg")
    public static let gif = ImageFormat(rawValue: "gif")
    public static let webp = ImageFormat(rawValue: "webp")
    public static let heic = ImageFormat(rawValue: "heic")
    public static let heif = ImageFormat(rawValue: "heif")
    public static let avif = ImageFormat(rawValue: "avif")
    public static let tiff = ImageFormat(rawValue: "tiff")
    public static let bmp = ImageFormat(rawValue: "bmp")
    public static let svg = ImageFormat(rawValue: "svg")
    public static let pdf = ImageFormat(rawValue: "pdf")
    public static let ico = ImageFormat(rawValue: "ico")
    /// JPEG XL, as a bare codestream or in its ISO-BMFF container.
    public static let jxl = ImageFormat(rawValue: "jxl")
    /// Bytes that match no known signature.
    public static let unknown = ImageFormat(rawValue: "unknown")

    /// The thirteen formats the kernel sniffs.
    /// Formats whose documents are drawn at any size rather than stored as pixels (SVG, PDF).
    public var isVector: Bool { self == .svg || self == .pdf }

    public static let sniffable: [ImageFormat] = [.png, .jpeg, .gif, .webp, .heic, .heif, .avif, .tiff, .bmp, .svg, .pdf, .ico, .jxl]

    /// The usual file extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .tiff: "tiff"
        default: rawValue
        }
    }

    /// The format a file extension names (`jpg`, `JPEG`, `png`, …), or nil.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg", "jpe", "jfif": self = .jpeg
        case "gif": self = .gif
        case "webp": self = .webp
        case "heic": self = .heic
        case "heif": self = .heif
        case "avif": self = .avif
        case "tif", "tiff": self = .tiff
        case "bmp": self = .bmp
        case "svg": self = .svg
        case "pdf": self = .pdf
        case "ico": self = .ico
        case "jxl": self = .jxl
        default: return nil
        }
    }
}
