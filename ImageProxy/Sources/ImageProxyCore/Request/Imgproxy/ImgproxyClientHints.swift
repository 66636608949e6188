/// The client hints imgproxy reads with `IMGPROXY_ENABLE_CLIENT_HINTS`: a device pixel ratio
/// (`Sec-CH-DPR`, else `DPR`; above 0 and at most 8) and a width in device pixels
/// (`Sec-CH-Width`, else `Width`; above 0). A URL starts from them: `dpr` is the ratio and
/// `width` the hint's width over it (rounded), before the `default` preset and the URL's own
/// options, which win.
public struct ImgproxyClientHints: Sendable, Hashable {
    public var dpr: Double?
    public var width: Int?

    public init(dpr: Double? = nil, width: Int? = nil) {
        self.dpr = dpr
        self.width = width
    }

    /// The hints of a request, `header` giving a header's value by name (any case); a value that
    /// does not parse or is out of range is skipped for the next name, as imgproxy does.
    public init(header: (String) -> String?) {
        for name in ["Sec-CH-DPR", "DPR"] {
            guard let text = header(name), !text.isEmpty else { continue }
            if let value = Double(text), value > 0, value <= Self.maxDPR {
                dpr = value
                break
            }
        }
        for name in ["Sec-CH-Width", "Width"] {
            guard let text = header(name), !text.isEmpty else { continue }
            if let value = Int(text), value > 0 {
                width = value
                break
            }
        }
    }

    /// imgproxy's `maxClientHintDPR`.
    public static let maxDPR = 8.0

    /// The `Vary` names imgproxy sends when it reads hints.
    public static let varyNames = "Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width"

    /// Its part of a route key.
    var keyPart: String { "\(dpr.map { "\($0)" } ?? "-"):\(width.map { "\($0)" } ?? "-")" }

    /// Sets `options`' starting `dpr` and `width` (imgproxy's `defaultProcessingOptions`).
    func apply(to options: inout ImgproxyOptions) {
        let ratio = dpr ?? 1
        if let dpr { options.dpr = dpr }
        if let width { options.width = Int((Double(width) / ratio).rounded(.toNearestOrAwayFromZero)) }
    }
}
