import Foundation
import ImageKernel

extension CoderConformance {
    /// An image to encode and where it came from.
    struct RoundTripSource {
        var name: String
        var image: Image
    }

    /// Gradients in the target's pixel formats (plus one with padded rows) and, unless
    /// `syntheticOnly`, every fixture that decodes to one of those formats.
    func roundTripSources(_ target: EncodeTarget, opaque: Bool, syntheticOnly: Bool) -> [RoundTripSource] {
        var sources = target.pixelFormats.map { format in
            RoundTripSource(
                name: "gradient-\(format)", image: SyntheticImage.gradient(width: 33, height: 17, format: format, opaque: opaque))
        }
        if let first = target.pixelFormats.first {
            sources.append(
                RoundTripSource(
                    name: "gradient-\(first)-padded-rows",
                    image: SyntheticImage.gradient(width: 33, height: 17, format: first, padding: 6, opaque: opaque)))
        }
        guard !syntheticOnly else { return sources }
        for fixture in fixtures {
            guard case .success(let image) = decode(fixture.data, decodeOptions),
                target.pixelFormats.contains(image.pixelFormat), ImageShape.problem(image) == nil
            else { continue }
            sources.append(RoundTripSource(name: "decoded \(fixture.name)", image: image))
        }
        return sources
    }

    func checkRoundTrip(_ context: CaseContext, pixels: Bool) throws(ConformanceFailure) {
        for target in encodeTargets {
            guard coder.canEncode(target.format) else {
                throw context.failure("format \(target.format)", "canEncode is false for a format listed as an encode target")
            }
            let lossyPixels = pixels && !target.isLossless
            for source in roundTripSources(target, opaque: lossyPixels, syntheticOnly: lossyPixels) {
                let input = Describe.image(source.name, source.image) + " encoded as \(target.format)"
                let encoded: Data
                switch encode(source.image, target) {
                case .success(let data): encoded = data
                case .failure(let error): throw context.failure(input, "encode threw", underlying: error)
                }
                let decoded: Image
                switch decode(encoded, decodeOptions) {
                case .success(let image): decoded = image
                case .failure(let error):
                    throw context.failure(input + " → " + Describe.bytes("encoded", encoded), "decoding the coder's own output threw", underlying: error)
                }
                if pixels {
                    if let problem = Self.pixelMismatch(source.image, decoded, target) { throw context.failure(input, problem) }
                    continue
                }
                if !coder.canDecode(encoded) {
                    throw context.failure(input + " → " + Describe.bytes("encoded", encoded), "canDecode is false for the coder's own output")
                }
                if let problem = ImageShape.problem(decoded) { throw context.failure(input, "after the round trip: \(problem)") }
                if decoded.width != source.image.width || decoded.height != source.image.height {
                    throw context.failure(input, "the round trip gave \(decoded.width)x\(decoded.height)")
                }
            }
        }
    }

    /// Why the round-tripped pixels are not faithful enough, or nil.
    static func pixelMismatch(_ source: Image, _ decoded: Image, _ target: EncodeTarget) -> String? {
        guard ImageShape.problem(decoded) == nil, decoded.width == source.width, decoded.height == source.height else {
            return "the round trip gave \(Describe.summary(decoded))"
        }
        let composited = source.pixelFormat.hasAlpha && !decoded.pixelFormat.hasAlpha
        let expected = composited
            ? composite(ImageShape.rgba8(source), over: target.options.backgroundColor) : ImageShape.rgba8(source)
        let actual = ImageShape.rgba8(decoded)
        if target.isLossless {
            let tolerance = composited ? 1 : 0
            for index in expected.indices where abs(Int(expected[index]) - Int(actual[index])) > tolerance {
                return "lossless round trip changed sample \(index % 4) of pixel \(index / 4) from \(expected[index]) to \(actual[index])"
                    + (composited ? " (expected composited over the background colour)" : "")
            }
            return nil
        }
        let total = zip(expected, actual).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        let mean = Double(total) / Double(max(1, expected.count))
        if mean > target.maxMeanError {
            return "lossy round trip differs by \(mean) per sample on average, more than \(target.maxMeanError)"
        }
        return nil
    }

    /// Straight RGBA8 composited over an opaque colour, as a format without alpha must store it.
    static func composite(_ rgba: [UInt8], over background: RGBColor) -> [UInt8] {
        var out = rgba
        let back = [Int(background.red), Int(background.green), Int(background.blue)]
        for pixel in stride(from: 0, to: rgba.count, by: 4) {
            let alpha = Int(rgba[pixel + 3])
            for channel in 0..<3 {
                out[pixel + channel] = UInt8((Int(rgba[pixel + channel]) * alpha + back[channel] * (255 - alpha) + 127) / 255)
            }
            out[pixel + 3] = 255
        }
        return out
    }

    func checkRefusesUnsupportedEncodeFormat(_ context: CaseContext) throws(ConformanceFailure) {
        let format = ImageFormat(rawValue: "conformance-unknown-format")
        let image = SyntheticImage.gradient(width: 8, height: 8, format: .rgba8)
        let input = Describe.image("gradient", image) + " encoded as \(format)"
        if coder.canEncode(format) { throw context.failure(input, "canEncode is true for a format no coder knows") }
        switch encode(image, EncodeTarget(format: format, isLossless: true)) {
        case .success(let data):
            throw context.failure(input, "encode returned \(data.count) bytes instead of throwing unsupported")
        case .failure(let error) where error.code != .unsupported || error.stage != .encode:
            throw context.failure(input, "expected stage encode and code unsupported", underlying: error)
        case .failure:
            return
        }
    }
}
