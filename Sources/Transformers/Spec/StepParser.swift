import ImageKernel

/// Parses one step of a ``TransformSpec``; every problem becomes a ``TransformSpecError`` naming it.
struct StepParser {
    let index: Int
    let text: String
    let threadLimit: Int
    /// The box of the last `resize` or `crop:W:H` before this step, for `extend` without a size.
    let box: (width: Int, height: Int)?
    private let name: String
    private var arguments: [String]

    /// The device pixel ratio the spec's `dpr` steps give: sizes of `resize`, `crop:W:H`, `pad`
    /// and `extend:W:H` are multiplied by it.
    let dpr: Double

    /// The image `watermark` steps composite, if the caller configured one.
    let watermark: Image?

    init(index: Int, text: String, threadLimit: Int, box: (width: Int, height: Int)? = nil, dpr: Double = 1, watermark: Image? = nil) {
        self.watermark = watermark
        self.index = index
        self.text = text
        self.threadLimit = threadLimit
        self.box = box
        self.dpr = dpr
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        name = parts[0].lowercased()
        arguments = Array(parts.dropFirst())
    }

    private func failure(_ problem: TransformSpecError.Problem) -> TransformSpecError {
        TransformSpecError(stepIndex: index, step: text, problem: problem)
    }

    /// Whether this is a `dpr` step (``TransformSpec`` reads those first, with ``ratio()``).
    var isDPR: Bool { name == "dpr" }

    /// A `dpr:N` step's ratio, more than 0 and at most 8.
    func ratio() throws(TransformSpecError) -> Double {
        try expectArguments(1...1, "N (more than 0, at most 8)")
        let value = try number(arguments[0], in: 0...8)
        guard value > 0 else { throw failure(.outOfRange(arguments[0], allowed: "more than 0, at most 8")) }
        return value
    }

    mutating func transformer() throws(TransformSpecError) -> any ImageTransformer {
        guard !text.isEmpty else { throw failure(.emptyStep) }
        switch name {
        case "resize": return try resize()
        case "crop":
            if arguments.count >= 3, arguments[2].lowercased() == "fp" {
                try expectArguments(5...5, "W:H:fp:X:Y")
                return CropTransformer(.placed(width: try scaledSide(arguments[0]), height: try scaledSide(arguments[1]), placement: try focusPoint(arguments[3], arguments[4])))
            }
            switch arguments.count {
            case 2, 3:
                let width = try scaledSide(arguments[0]), height = try scaledSide(arguments[1])
                switch arguments.count == 3 ? try value(arguments[2], CropPlacement.init(name:), "a gravity, smart or fp:X:Y") : .gravity(.centre) {
                case .gravity(let gravity): return CropTransformer(.size(width: width, height: height, gravity: gravity))
                case let placement: return CropTransformer(.placed(width: width, height: height, placement: placement))
                }
            case 4:
                return CropTransformer(.rect(x: try offset(arguments[0]), y: try offset(arguments[1]), width: try side(arguments[2]), height: try side(arguments[3])))
            default: throw failure(.wrongArgumentCount(expected: "W:H[:gravity|smart|fp:X:Y] or X:Y:W:H", got: arguments.count))
            }
        case "rotate":
            try expectArguments(1...2, "DEG[:RRGGBBAA]")
            let degrees = try number(arguments[0], in: -1e6...1e6)
            return RotateTransformer(degrees: degrees, background: arguments.count == 2 ? try color(arguments[1]) : .transparent)
        case "flip":
            try expectArguments(1...1, "h or v")
            let axis = try value(arguments[0], { (["h": .horizontal, "horizontal": .horizontal, "v": .vertical, "vertical": .vertical] as [String: FlipTransformer.Axis])[$0.lowercased()] }, "h or v")
            return FlipTransformer(axis)
        case "orient":
            try expectArguments(0...0, "no arguments")
            return OrientTransformer()
        case "round":
            try expectArguments(1...1, "a radius R")
            return RoundCornersTransformer(.corners(radius: try integer(arguments[0], in: 0...TransformLimits.maxSide)))
        case "circle":
            try expectArguments(0...0, "no arguments")
            return RoundCornersTransformer(.circle)
        case "blur":
            try expectArguments(1...1, "SIGMA")
            return GaussianBlurTransformer(sigma: try sigma(arguments[0]), threadLimit: threadLimit)
        case "sharpen":
            try expectArguments(1...2, "SIGMA[:AMOUNT]")
            let amount = arguments.count == 2 ? try number(arguments[1], in: 0...100) : 1
            return SharpenTransformer(sigma: try sigma(arguments[0]), amount: amount, threadLimit: threadLimit)
        case "pixelate", "pix":
            try expectArguments(1...1, "N (block side in pixels)")
            return PixelateTransformer(size: try integer(arguments[0], in: 1...TransformLimits.maxSide))
        case "tint":
            try expectArguments(1...1, "RRGGBBAA")
            return TintTransformer(try color(arguments[0]))
        case "pad", "padding":
            try expectArguments(4...5, "T:R:B:L[:RRGGBBAA]")
            return PadTransformer(
                top: try scaledOffset(arguments[0]), right: try scaledOffset(arguments[1]), bottom: try scaledOffset(arguments[2]),
                left: try scaledOffset(arguments[3]),
                color: arguments.count == 5 ? try color(arguments[4]) : .transparent)
        case "extend":
            return try extend()
        case "watermark", "wm":
            return try watermarkStep()
        case "trim":
            try expectArguments(0...2, "[THRESHOLD[:RRGGBB]]")
            return TrimTransformer(
                threshold: arguments.isEmpty ? 10 : try number(arguments[0], in: 0...255), color: arguments.count == 2 ? try color(arguments[1]) : nil)
        case "background", "bg":
            try expectArguments(1...1, "RRGGBB[AA]")
            return BackgroundTransformer(try color(arguments[0]))
        case "gray", "grey", "grayscale", "greyscale":
            try expectArguments(0...0, "no arguments")
            return GrayscaleTransformer()
        default:
            throw failure(.unknownStep(name))
        }
    }

    private func resize() throws(TransformSpecError) -> ResizeTransformer {
        guard arguments.count >= 3, arguments.count <= 8 else {
            throw failure(.wrongArgumentCount(expected: "fit|fill|stretch:W:H[:filter][:gravity][:enlarge]", got: arguments.count))
        }
        let mode = try value(arguments[0], { ResizeTransformer.Mode(rawValue: $0.lowercased()) }, "fit, fill or stretch")
        let width = try scaledSide(arguments[1]), height = try scaledSide(arguments[2])
        var filter: ResamplingFilter?, placement: CropPlacement?, enlarge = false
        var options = arguments.dropFirst(3)[...]
        while let option = options.popFirst() {
            if let f = ResamplingFilter(name: option), filter == nil {
                filter = f
            } else if mode == .fill, placement == nil, option.lowercased() == "fp" {
                guard options.count >= 2 else { throw failure(.wrongArgumentCount(expected: "fp:X:Y", got: options.count)) }
                placement = try focusPoint(options.removeFirst(), options.removeFirst())
            } else if mode == .fill, let p = CropPlacement(name: option), placement == nil {
                placement = p
            } else if option.lowercased() == "enlarge", !enlarge {
                enlarge = true
            } else {
                let expected = mode == .fill ? "a filter, a gravity (or smart, fp:X:Y) or enlarge (each at most once)" : "a filter or enlarge (each at most once)"
                throw failure(.unknownValue(option, expected: expected))
            }
        }
        return ResizeTransformer(
            mode, width: width, height: height, filter: filter ?? .lanczos3, allowsEnlarging: enlarge, threadLimit: threadLimit,
            placement: placement ?? .gravity(.centre))
    }

    /// `extend[:GRAVITY]` (the box of the resize or crop before it) or `extend:W:H[:GRAVITY[:RRGGBBAA]]`.
    private func extend() throws(TransformSpecError) -> ExtendTransformer {
        try expectArguments(0...4, "[GRAVITY] or W:H[:GRAVITY[:RRGGBBAA]]")
        let gravityIndex = arguments.count <= 1 ? 0 : 2
        let gravity = arguments.count > gravityIndex ? try value(arguments[gravityIndex], Gravity.init(name:), "a gravity") : .centre
        let color = arguments.count == 4 ? try color(arguments[3]) : .transparent
        if arguments.count >= 2 {
            return ExtendTransformer(width: try scaledSide(arguments[0]), height: try scaledSide(arguments[1]), gravity: gravity, color: color)
        }
        guard let box else { throw failure(.noSizeBefore) }
        return ExtendTransformer(width: box.width, height: box.height, gravity: gravity)
    }

    /// `watermark:OPACITY[:GRAVITY|re[:SCALE]]`.
    private func watermarkStep() throws(TransformSpecError) -> WatermarkTransformer {
        try expectArguments(1...3, "OPACITY[:GRAVITY|re[:SCALE]]")
        let opacity = try number(arguments[0], in: 0...1)
        var position = WatermarkTransformer.Position.gravity(.centre)
        if arguments.count >= 2 {
            position = try value(arguments[1], { ["re", "repeat", "tile", "tiled"].contains($0.lowercased()) ? .tiled : Gravity(name: $0).map { .gravity($0) } }, "a gravity or re")
        }
        let scale = arguments.count == 3 ? try number(arguments[2], in: 0...1) : 0
        guard let watermark else { throw failure(.noWatermark) }
        return WatermarkTransformer(watermark: watermark, opacity: opacity, position: position, scale: scale)
    }

    private func expectArguments(_ allowed: ClosedRange<Int>, _ expected: String) throws(TransformSpecError) {
        guard allowed.contains(arguments.count) else { throw failure(.wrongArgumentCount(expected: expected, got: arguments.count)) }
    }

    private func value<T>(_ text: String, _ parse: (String) -> T?, _ expected: String) throws(TransformSpecError) -> T {
        guard let parsed = parse(text) else { throw failure(.unknownValue(text, expected: expected)) }
        return parsed
    }

    private func integer(_ text: String, in range: ClosedRange<Int>) throws(TransformSpecError) -> Int {
        guard !text.isEmpty, text.allSatisfy(\.isASCII), let value = Int(text) else { throw failure(.notANumber(text)) }
        guard range.contains(value) else { throw failure(.outOfRange(text, allowed: "\(range.lowerBound)…\(range.upperBound)")) }
        return value
    }

    private func side(_ text: String) throws(TransformSpecError) -> Int { try integer(text, in: 1...TransformLimits.maxSide) }
    private func offset(_ text: String) throws(TransformSpecError) -> Int { try integer(text, in: 0...TransformLimits.maxSide) }

    /// A side or offset as written, times ``dpr`` (rounded; a side stays at least 1), within `range`.
    private func scaled(_ text: String, in range: ClosedRange<Int>) throws(TransformSpecError) -> Int {
        let written = try integer(text, in: range)
        guard dpr != 1 else { return written }
        let value = (Double(written) * dpr).rounded()
        guard value <= Double(range.upperBound) else {
            throw failure(.outOfRange(text, allowed: "\(range.lowerBound)…\(range.upperBound) after dpr \(SpecNumber.format(dpr))"))
        }
        return max(range.lowerBound, Int(value))
    }

    private func scaledSide(_ text: String) throws(TransformSpecError) -> Int { try scaled(text, in: 1...TransformLimits.maxSide) }
    private func scaledOffset(_ text: String) throws(TransformSpecError) -> Int { try scaled(text, in: 0...TransformLimits.maxSide) }

    private func number(_ text: String, in range: ClosedRange<Double>) throws(TransformSpecError) -> Double {
        guard let value = Double(text), value.isFinite else { throw failure(.notANumber(text)) }
        guard range.contains(value) else { throw failure(.outOfRange(text, allowed: "\(SpecNumber.format(range.lowerBound))…\(SpecNumber.format(range.upperBound))")) }
        return value
    }

    private func sigma(_ text: String) throws(TransformSpecError) -> Double {
        let value = try number(text, in: 0...GaussianBlurTransformer.maxSigma)
        guard value > 0 else { throw failure(.outOfRange(text, allowed: "more than 0, at most \(SpecNumber.format(GaussianBlurTransformer.maxSigma))")) }
        return value
    }

    /// `fp:X:Y`'s fractions of the width and height.
    private func focusPoint(_ x: String, _ y: String) throws(TransformSpecError) -> CropPlacement {
        .focusPoint(x: try number(x, in: 0...1), y: try number(y, in: 0...1))
    }

    private func color(_ text: String) throws(TransformSpecError) -> RGBAColor {
        guard let color = RGBAColor(hex: text) else { throw failure(.invalidColor(text)) }
        return color
    }
}
