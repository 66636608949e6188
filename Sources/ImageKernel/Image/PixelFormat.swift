/// How the pixels of an ``Image`` are laid out in memory.
///
/// Samples are interleaved in channel order (gray, gray+alpha, RGB, RGBA). 8-bit formats hold one
/// `UInt8` per sample; 16-bit formats hold one `UInt16` per sample in **host byte order**.
/// Alpha is straight (not premultiplied) unless ``isPremultiplied`` says otherwise.
public struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    /// The channels of one pixel, in memory order.
    public enum Layout: String, Hashable, Sendable {
        case gray
        case grayAlpha
        case rgb
        case rgba

        /// Number of samples per pixel.
        public var channelCount: Int {
            switch self {
            case .gray: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }

        /// Whether the last channel is alpha.
        public var hasAlpha: Bool { self == .grayAlpha || self == .rgba }
    }

    public var layout: Layout
    /// Bits per sample: 8 or 16.
    public var bitsPerComponent: Int
    /// Whether colour samples are premultiplied by alpha.
    public var isPremultiplied: Bool

    public init(layout: Layout, bitsPerComponent: Int, isPremultiplied: Bool = false) {
        precondition(bitsPerComponent == 8 || bitsPerComponent == 16, "8 or 16 bits per component")
        self.layout = layout
        self.bitsPerComponent = bitsPerComponent
        self.isPremultiplied = isPremultiplied && layout.hasAlpha
    }

    public static let rgba8 = PixelFormat(layout: .rgba, bitsPerComponent: 8)
    public static let rgba8Premultiplied = PixelFormat(layout: .rgba, bitsPerComponent: 8, isPremultiplied: true)
    public static let rgb8 = PixelFormat(layout: .rgb, bitsPerComponent: 8)
    public static let gray8 = PixelFormat(layout: .gray, bitsPerComponent: 8)
    public static let grayAlpha8 = PixelFormat(layout: .grayAlpha, bitsPerComponent: 8)
    public static let rgba16 = PixelFormat(layout: .rgba, bitsPerComponent: 16)
    public static let rgb16 = PixelFormat(layout: .rgb, bitsPerComponent: 16)
    public static let gray16 = PixelFormat(layout: .gray, bitsPerComponent: 16)
    public static let grayAlpha16 = PixelFormat(layout: .grayAlpha, bitsPerComponent: 16)

    public var channelCount: Int { layout.channelCount }
    public var hasAlpha: Bool { layout.hasAlpha }
    public var bytesPerSample: Int { bitsPerComponent / 8 }
    public var bytesPerPixel: Int { channelCount * bytesPerSample }

    /// A short stable name used by the CLI: `rgba8`, `gray16`, `rgba8p`, …
    public var description: String {
        let base: String
        switch layout {
        case .gray: base = "gray"
        case .grayAlpha: base = "graya"
        case .rgb: base = "rgb"
        case .rgba: base = "rgba"
        }
        return "\(base)\(bitsPerComponent)\(isPremultiplied ? "p" : "")"
    }
}
