import Foundation
import ImageKernel

extension CoderConformance {
    /// Seeded random inputs of several lengths; none starts with a known signature.
    static let randomInputs: [(name: String, data: Data)] = {
        var random = SeededRandom(seed: 0x1AC0_DE55)
        return [1, 7, 64, 1000, 65536].map { count in ("random-\(count)", Data(random.bytes(count))) }
    }()

    func checkSniffingAgreesWithDecode(_ context: CaseContext) throws(ConformanceFailure) {
        for fixture in try requireFixtures(context) where !coder.canDecode(fixture.data) {
            throw context.failure(fixture.described, "canDecode is false for a fixture the coder must decode")
        }
        if coder.canDecode(Data()) {
            throw context.failure(Describe.bytes("empty", Data()), "canDecode is true for empty input")
        }
        for (name, data) in Self.randomInputs where coder.canDecode(data) {
            throw context.failure(Describe.bytes(name, data), "canDecode is true for random bytes")
        }
        for format in ImageFormat.sniffable where !claimedFormats.contains(format) {
            guard let sample = FormatSignatures.sample(format), coder.canDecode(sample) else { continue }
            throw context.failure(
                Describe.bytes("\(format)-signature", sample),
                "canDecode is true for the signature of \(format), which the coder does not claim (claimed: \(claimedFormats.map(\.rawValue).sorted()))")
        }
    }

    func checkSniffsFromLeadingBytes(_ context: CaseContext) throws(ConformanceFailure) {
        for fixture in try requireFixtures(context) {
            let head = fixture.data.prefix(sniffPrefixLength)
            if !coder.canDecode(Data(head)) {
                throw context.failure(
                    fixture.described, "canDecode is false for the first \(head.count) bytes; it must decide by the leading bytes alone")
            }
        }
    }

    func checkDecodesEveryFixture(_ context: CaseContext) throws(ConformanceFailure) {
        for fixture in try requireFixtures(context) {
            let image = try decodeFixture(fixture, decodeOptions, context)
            if let problem = ImageShape.problem(image) { throw context.failure(fixture.described, problem) }
            func expect(_ ok: Bool, _ message: @autoclosure () -> String) throws(ConformanceFailure) {
                if !ok { throw context.failure(fixture.described, message()) }
            }
            try expect(
                image.width == fixture.width && image.height == fixture.height,
                "decoded \(image.width)x\(image.height), expected \(fixture.width)x\(fixture.height)")
            try expect(image.sourceFormat == fixture.format, "sourceFormat is \(image.sourceFormat), expected \(fixture.format)")
            try expect(!image.isPreview, "a full decode returned an image marked as a preview")
            if let format = fixture.pixelFormat {
                try expect(image.pixelFormat == format, "pixel format is \(image.pixelFormat), expected \(format)")
            }
            if let orientation = fixture.orientation {
                try expect(image.orientation == orientation, "orientation is \(image.orientation), expected \(orientation)")
            }
            if let expected = fixture.rgba8Pixels {
                let actual = ImageShape.rgba8(image)
                if actual != expected {
                    let index = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
                    throw context.failure(
                        fixture.described,
                        "RGBA8 pixels differ from the expected ones, first at byte \(index) (pixel \(index / 4)); \(actual.count) vs \(expected.count) bytes")
                }
            }
        }
    }

    func checkRejectsEmptyInput(_ context: CaseContext) throws(ConformanceFailure) {
        if case .success(let image) = decode(Data(), decodeOptions) {
            throw context.failure(Describe.bytes("empty", Data()), "decode returned an image (\(Describe.summary(image))) instead of throwing")
        }
    }

    func checkRejectsRandomInput(_ context: CaseContext) throws(ConformanceFailure) {
        for (name, data) in Self.randomInputs {
            if case .success(let image) = decode(data, decodeOptions) {
                throw context.failure(Describe.bytes(name, data), "decode returned an image (\(Describe.summary(image))) instead of throwing")
            }
        }
    }

    /// The lengths a fixture is cut to: 1 byte, 16 bytes, half.
    static func truncations(of data: Data) -> [Int] {
        Array(Set([1, 16, data.count / 2].filter { $0 > 0 && $0 < data.count })).sorted()
    }

    func checkRejectsTruncatedInput(_ context: CaseContext) throws(ConformanceFailure) {
        for fixture in try requireFixtures(context) {
            for length in Self.truncations(of: fixture.data) {
                let cut = fixture.data.prefix(length)
                let input = Describe.bytes("\(fixture.name) cut to \(length) bytes", cut)
                switch decode(Data(cut), decodeOptions) {
                case .success(let image) where fixture.rejectsTruncation:
                    throw context.failure(input, "decode returned an image (\(Describe.summary(image))) instead of throwing")
                case .success(let image):
                    if let problem = ImageShape.problem(image) { throw context.failure(input, problem) }
                case .failure:
                    continue
                }
            }
        }
    }

    func checkSurvivesCorruptedInput(_ context: CaseContext) throws(ConformanceFailure) {
        let fixtures = try requireFixtures(context)
        let largest = fixtures.map { $0.width * $0.height }.max() ?? 0
        var options = decodeOptions
        options.pixelLimit = min(decodeOptions.pixelLimit, max(4 * largest, 1 << 20))
        options.scaleDownLargeImages = false
        var random = SeededRandom(seed: 0xC0_22_0B7)
        for fixture in fixtures where fixture.data.count > 24 {
            for variant in 0..<4 {
                var bytes = [UInt8](fixture.data)
                let flips = variant == 0 ? 1 : 4 * variant
                for _ in 0..<flips {
                    let position = Int.random(in: 16..<bytes.count, using: &random)
                    bytes[position] ^= UInt8.random(in: 1...255, using: &random)
                }
                let input = Describe.bytes("\(fixture.name) with \(flips) corrupted byte(s), variant \(variant)", Data(bytes))
                guard case .success(let image) = decode(Data(bytes), options) else { continue }
                if let problem = ImageShape.problem(image) { throw context.failure(input, problem) }
                if image.pixelCount > options.pixelLimit {
                    throw context.failure(input, "decoded \(image.width)x\(image.height), over the pixel limit \(options.pixelLimit)")
                }
            }
        }
    }

    func checkDecodeErrorsNameStageAndPlugin(_ context: CaseContext) throws(ConformanceFailure) {
        var inputs: [(name: String, data: Data)] = [("empty", Data())] + Self.randomInputs
        for fixture in try requireFixtures(context) where fixture.rejectsTruncation {
            let cut = fixture.data.prefix(fixture.data.count / 2)
            if !cut.isEmpty { inputs.append(("\(fixture.name) cut to \(cut.count) bytes", Data(cut))) }
        }
        for (name, data) in inputs {
            guard case .failure(let error) = decode(data, decodeOptions) else { continue }
            let input = Describe.bytes(name, data)
            if error.stage != .decode {
                throw context.failure(input, "the error's stage is \(error.stage), expected decode", underlying: error)
            }
            if error.plugin != coder.name {
                throw context.failure(
                    input, "the error's plugin is \(error.plugin.map { "'\($0)'" } ?? "nil"), expected the coder's name '\(coder.name)'",
                    underlying: error)
            }
            if error.code == .internalError || error.code == .cancelled {
                throw context.failure(input, "bad input must give a data error, not '\(error.code)'", underlying: error)
            }
        }
    }
}
