import ImageKernel
import Testing
import Transformers

@Suite("TransformSpec")
struct TransformSpecTests {
    static let normalised: [(String, String)] = [
        ("resize:fit:300:200", "resize:fit:300:200:lanczos3"),
        ("RESIZE:Fill:300:200:Area:North", "resize:fill:300:200:box:north"),
        ("resize:fill:300:200:ce", "resize:fill:300:200:lanczos3"),
        ("resize:stretch:30:20:enlarge:bilinear", "resize:stretch:30:20:bilinear:enlarge"),
        ("crop:10:20", "crop:10:20:centre"),
        ("crop:10:20:noea", "crop:10:20:northeast"),
        ("crop:1:2:10:20", "crop:1:2:10:20"),
        ("rotate:-90", "rotate:270"),
        ("rotate:450", "rotate:90"),
        ("rotate:45:FFFFFF", "rotate:45:ffffffff"),
        ("rotate:22.50", "rotate:22.5:00000000"),
        ("flip:horizontal", "flip:h"),
        ("flip:V", "flip:v"),
        ("orient", "orient"),
        ("round:12", "round:12"),
        ("circle", "circle"),
        ("blur:2.50", "blur:2.5"),
        ("blur:10.0", "blur:10"),
        ("sharpen:1:1", "sharpen:1"),
        ("sharpen:1:0.5", "sharpen:1:0.5"),
        ("tint:FF000080", "tint:ff000080"),
        ("tint:#ff0000", "tint:ff0000ff"),
        ("grayscale", "gray"),
        (" orient/resize:fill:300:200/round:12 ", "orient/resize:fill:300:200:lanczos3/round:12"),
        // Smart crop and focus points, pad, extend, background, trim, dpr.
        ("crop:10:20:SM", "crop:10:20:smart"),
        ("crop:10:20:smart", "crop:10:20:smart"),
        ("crop:10:20:fp:0.50:1", "crop:10:20:fp:0.5:1"),
        ("resize:fill:30:20:smart", "resize:fill:30:20:lanczos3:smart"),
        ("resize:fill:30:20:fp:0.2:0.8:box", "resize:fill:30:20:box:fp:0.2:0.8"),
        ("resize:fill:30:20:enlarge:fp:0:1", "resize:fill:30:20:lanczos3:fp:0:1:enlarge"),
        ("pad:1:2:3:4", "pad:1:2:3:4:00000000"),
        ("padding:0:0:0:0:FFFFFF", "pad:0:0:0:0:ffffffff"),
        ("resize:fit:30:20/extend", "resize:fit:30:20:lanczos3/extend:30:20:centre"),
        ("crop:8:9/extend:so", "crop:8:9:centre/extend:8:9:south"),
        ("resize:fit:30:20/crop:0:0:5:5/extend:we", "resize:fit:30:20:lanczos3/crop:0:0:5:5/extend:30:20:west"),
        ("extend:5:6:noea:ff0000", "extend:5:6:northeast:ff0000ff"),
        ("extend:5:6", "extend:5:6:centre"),
        ("background:FFFFFF", "background:ffffffff"),
        ("bg:00000080", "background:00000080"),
        ("trim", "trim:10"),
        ("gray/trim:5.0:FFFFFF", "trim:5:ffffffff/gray"),
        ("resize:fit:100:50/dpr:2", "resize:fit:200:100:lanczos3"),
        ("dpr:1.5/crop:10:10:smart", "crop:15:15:smart"),
        ("pad:1:2:3:4/dpr:2", "pad:2:4:6:8:00000000"),
        ("crop:1:2:3:4/dpr:2", "crop:1:2:3:4"),
        ("resize:fit:10:10/extend/dpr:3", "resize:fit:30:30:lanczos3/extend:30:30:centre"),
        ("dpr:2/dpr:1.5/resize:fill:10:10", "resize:fill:30:30:lanczos3"),
        ("resize:fit:1:1/dpr:0.1", "resize:fit:1:1:lanczos3"),
    ]

    @Test(arguments: normalised)
    func specsNormaliseAndTheKeyParsesToItself(_ pair: (String, String)) throws {
        let spec = try TransformSpec(parsing: pair.0)
        #expect(spec.key == pair.1)
        #expect(try TransformSpec(parsing: spec.key).key == spec.key)
    }

    @Test func equalChainsShareOneCacheKeySuffix() throws {
        let a = try TransformSpec(parsing: "orient/resize:fill:300:200/round:12")
        let b = try TransformSpec(parsing: "ORIENT/resize:fill:300:200:lanczos:center/round:12")
        #expect(a.key == b.key)
        #expect(CacheKey.transformed("u", transformerKey: a.key) == CacheKey.transformed("u", transformerKey: b.key))
    }

    static let malformed: [(String, Int, TransformSpecError.Problem)] = [
        ("", 0, .emptySpec),
        ("   ", 0, .emptySpec),
        ("orient//gray", 2, .emptyStep),
        ("orient/", 2, .emptyStep),
        ("zoom:2", 1, .unknownStep("zoom")),
        ("resize:fit:300", 1, .wrongArgumentCount(expected: "fit|fill|stretch:W:H[:filter][:gravity][:enlarge]", got: 2)),
        ("resize:squash:300:200", 1, .unknownValue("squash", expected: "fit, fill or stretch")),
        ("resize:fit:abc:200", 1, .notANumber("abc")),
        ("resize:fit:0:200", 1, .outOfRange("0", allowed: "1…65536")),
        ("resize:fit:99999999:200", 1, .outOfRange("99999999", allowed: "1…65536")),
        ("resize:fit:-5:200", 1, .outOfRange("-5", allowed: "1…65536")),
        ("resize:fit:300:200:nearest", 1, .unknownValue("nearest", expected: "a filter or enlarge (each at most once)")),
        ("resize:fit:300:200:north", 1, .unknownValue("north", expected: "a filter or enlarge (each at most once)")),
        ("resize:fill:300:200:box:box", 1, .unknownValue("box", expected: "a filter, a gravity (or smart, fp:X:Y) or enlarge (each at most once)")),
        ("orient/crop:10", 2, .wrongArgumentCount(expected: "W:H[:gravity|smart|fp:X:Y] or X:Y:W:H", got: 1)),
        ("crop:10:10:middle", 1, .unknownValue("middle", expected: "a gravity, smart or fp:X:Y")),
        ("crop:-1:0:5:5", 1, .outOfRange("-1", allowed: "0…65536")),
        ("rotate", 1, .wrongArgumentCount(expected: "DEG[:RRGGBBAA]", got: 0)),
        ("rotate:nan", 1, .notANumber("nan")),
        ("rotate:inf", 1, .notANumber("inf")),
        ("rotate:45:red", 1, .invalidColor("red")),
        ("flip:x", 1, .unknownValue("x", expected: "h or v")),
        ("orient:1", 1, .wrongArgumentCount(expected: "no arguments", got: 1)),
        ("round:1.5", 1, .notANumber("1.5")),
        ("round:", 1, .notANumber("")),
        ("circle:3", 1, .wrongArgumentCount(expected: "no arguments", got: 1)),
        ("blur:0", 1, .outOfRange("0", allowed: "more than 0, at most 100")),
        ("blur:-2", 1, .outOfRange("-2", allowed: "0…100")),
        ("blur:500", 1, .outOfRange("500", allowed: "0…100")),
        ("gray/sharpen", 2, .wrongArgumentCount(expected: "SIGMA[:AMOUNT]", got: 0)),
        ("tint:12345", 1, .invalidColor("12345")),
        ("tint:gggggggg", 1, .invalidColor("gggggggg")),
        // Smart crop and focus points, pad, extend, background, trim, dpr, watermark (without an image).
        ("crop:10:20:fp:2:0", 1, .outOfRange("2", allowed: "0…1")),
        ("crop:10:20:fp:0.5", 1, .wrongArgumentCount(expected: "W:H:fp:X:Y", got: 4)),
        ("crop:10:20:fp:0.5:x", 1, .notANumber("x")),
        ("crop:10:20:smartest", 1, .unknownValue("smartest", expected: "a gravity, smart or fp:X:Y")),
        ("resize:fit:30:20:smart", 1, .unknownValue("smart", expected: "a filter or enlarge (each at most once)")),
        ("resize:fill:30:20:fp:0.5", 1, .wrongArgumentCount(expected: "fp:X:Y", got: 1)),
        ("resize:fill:30:20:smart:north", 1, .unknownValue("north", expected: "a filter, a gravity (or smart, fp:X:Y) or enlarge (each at most once)")),
        ("extend", 1, .noSizeBefore),
        ("crop:0:0:4:4/extend:ce", 2, .noSizeBefore),
        ("extend:5", 1, .unknownValue("5", expected: "a gravity")),
        ("extend:5:6:up", 1, .unknownValue("up", expected: "a gravity")),
        ("extend:5:6:ce:red", 1, .invalidColor("red")),
        ("extend:1:2:3:4:5", 1, .wrongArgumentCount(expected: "[GRAVITY] or W:H[:GRAVITY[:RRGGBBAA]]", got: 5)),
        ("pad:1:2:3", 1, .wrongArgumentCount(expected: "T:R:B:L[:RRGGBBAA]", got: 3)),
        ("pad:1:2:3:-4", 1, .outOfRange("-4", allowed: "0…65536")),
        ("pad:1:2:3:4:red", 1, .invalidColor("red")),
        ("background", 1, .wrongArgumentCount(expected: "RRGGBB[AA]", got: 0)),
        ("background:fff", 1, .invalidColor("fff")),
        ("trim:300", 1, .outOfRange("300", allowed: "0…255")),
        ("trim:10:zz", 1, .invalidColor("zz")),
        ("trim:1:2:3", 1, .wrongArgumentCount(expected: "[THRESHOLD[:RRGGBB]]", got: 3)),
        ("orient/watermark:0.5", 2, .noWatermark),
        ("watermark:2", 1, .outOfRange("2", allowed: "0…1")),
        ("watermark", 1, .wrongArgumentCount(expected: "OPACITY[:GRAVITY|re[:SCALE]]", got: 0)),
        ("dpr:0", 1, .outOfRange("0", allowed: "more than 0, at most 8")),
        ("dpr:9", 1, .outOfRange("9", allowed: "0…8")),
        ("gray/dpr:abc", 2, .notANumber("abc")),
        ("dpr", 1, .wrongArgumentCount(expected: "N (more than 0, at most 8)", got: 0)),
        ("dpr:4/dpr:4", 2, .outOfRange("16", allowed: "a dpr of at most 8 in all")),
        ("resize:fit:40000:10/dpr:2", 1, .outOfRange("40000", allowed: "1…65536 after dpr 2")),
        ("dpr:2", 0, .emptySpec),
    ]

    @Test(arguments: malformed)
    func malformedSpecsGiveATypedErrorNamingTheStep(_ entry: (String, Int, TransformSpecError.Problem)) {
        do {
            let spec = try TransformSpec(parsing: entry.0)
            Issue.record("'\(entry.0)' parsed as '\(spec.key)'")
        } catch {
            #expect(error.stepIndex == entry.1)
            #expect(error.problem == entry.2)
            #expect(entry.1 == 0 || error.description.contains("step \(entry.1)"))
            #expect(error.kernelError.stage == .transform && error.kernelError.code == .invalidArgument)
        }
    }

    @Test func aParsedChainRunsItsStepsInOrder() throws {
        let image = try noiseImage(width: 40, height: 20, format: .rgb8)
        let out = try TransformSpec(parsing: "crop:0:0:30:20/rotate:90/resize:fit:10:10:box").transform(image)
        #expect(out.width == 7 && out.height == 10)
        #expect(out.pixelFormat == .rgb8)
    }
}

@Suite("Shrink-on-load hints of a spec")
struct TransformSpecShrinkTests {
    @Test func onlyAChainThatStartsByResizingGivesAHint() throws {
        func hint(_ text: String) throws -> ShrinkOnLoad? { try TransformSpec(parsing: text).shrinkOnLoad }
        #expect(try hint("resize:fill:300:200") == ShrinkOnLoad(width: 300, height: 200, mode: .fill))
        #expect(try hint("resize:fit:300:200/round:12") == ShrinkOnLoad(width: 300, height: 200, mode: .fit))
        #expect(try hint("resize:stretch:300:200") == ShrinkOnLoad(width: 300, height: 200, mode: .fill))
        #expect(try hint("orient/gray/flip:h/tint:ff000080/resize:fill:30:20") == ShrinkOnLoad(width: 30, height: 20, mode: .fill))
        #expect(try hint("crop:0:0:100:100/resize:fill:30:20") == nil)
        #expect(try hint("blur:2/resize:fill:30:20") == nil)
        #expect(try hint("rotate:30/resize:fit:30:20") == nil)
        #expect(try hint("gray") == nil)
    }
}
