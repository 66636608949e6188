/// An 8-bit straight-alpha colour, written `RRGGBBAA` (or `RRGGBB`, opaque) in specs.
public struct RGBAColor: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Transparent black, the default background of a rotation.
    public static let transparent = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// Parses `RRGGBBAA` or `RRGGBB` hex digits (an optional leading `#` is allowed).
    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit), var value = UInt32(digits, radix: 16) else { return nil }
        if digits.count == 6 { value = value << 8 | 0xFF }
        self.init(red: UInt8(value >> 24), green: UInt8(value >> 16 & 0xFF), blue: UInt8(value >> 8 & 0xFF), alpha: UInt8(value & 0xFF))
    }

    /// Lower-case `rrggbbaa`.
    public var description: String {
        let value = UInt32(red) << 24 | UInt32(green) << 16 | UInt32(blue) << 8 | UInt32(alpha)
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }

    /// This colour as a working pixel in a format whose samples reach `maxValue`, for `layout`
    /// (gray formats take the Rec. 709 luma), premultiplied when asked.
    func working(maxValue: Float, gray: Bool, premultiplied: Bool) -> SIMD4<Float> {
        let scale = maxValue / 255
        var c = SIMD4<Float>(Float(red), Float(green), Float(blue), Float(alpha)) * scale
        if gray { c = SIMD4<Float>(0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z, 0, 0, c.w) }
        if premultiplied {
            let a = c.w / maxValue
            c = SIMD4<Float>(c.x * a, c.y * a, c.z * a, c.w)
        }
        return c
    }
}
