import Foundation

/// The reconstruction filter a resize samples with.
///
/// When downscaling, every filter's support is widened by the scale factor (as Pillow and
/// libvips do), so each output pixel averages all the source pixels it covers and nothing aliases.
public enum ResamplingFilter: String, Sendable, Hashable, CaseIterable {
    /// Box (area average when downscaling): support 0.5.
    case box
    /// Triangle (bilinear): support 1.
    case bilinear
    /// Catmull-Rom cubic (a = -0.5): support 2.
    case bicubic
    /// Lanczos windowed sinc with 3 lobes: support 3.
    case lanczos3

    /// Parses a filter name; `area` is another name for ``box`` and `lanczos` for ``lanczos3``.
    public init?(name: String) {
        switch name.lowercased() {
        case "box", "area": self = .box
        case "bilinear", "linear", "triangle": self = .bilinear
        case "bicubic", "cubic", "catmullrom": self = .bicubic
        case "lanczos3", "lanczos": self = .lanczos3
        default: return nil
        }
    }

    /// Half-width of the filter at scale 1, in source pixels.
    var support: Double {
        switch self {
        case .box: 0.5
        case .bilinear: 1
        case .bicubic: 2
        case .lanczos3: 3
        }
    }

    /// The filter's weight at distance `x` (in filter units), as Pillow defines it.
    func weight(_ x: Double) -> Double {
        switch self {
        case .box:
            return x > -0.5 && x <= 0.5 ? 1 : 0
        case .bilinear:
            let t = abs(x)
            return t < 1 ? 1 - t : 0
        case .bicubic:
            let a = -0.5, t = abs(x)
            if t < 1 { return ((a + 2) * t - (a + 3)) * t * t + 1 }
            if t < 2 { return (((t - 5) * t + 8) * t - 4) * a }
            return 0
        case .lanczos3:
            guard x > -3, x < 3 else { return 0 }
            return Self.sinc(x) * Self.sinc(x / 3)
        }
    }

    private static func sinc(_ x: Double) -> Double {
        guard x != 0 else { return 1 }
        let px = x * Double.pi
        return sin(px) / px
    }
}
