import ImageKernel
import Testing
import Transformers

/// The steps imgproxy's users rely on: smart and focus-point placement, pad, extend, background,
/// trim, dpr and watermark, as the parser reads them.
@Suite("TransformSpec: smart crop, pad, extend, background, trim, dpr, watermark")
struct TransformSpecStepsTests {
    static let mark: Image = try! Image(width: 2, height: 2, pixelFormat: .rgba8, pixels: [UInt8](repeating: 200, count: 16))

    @Test func watermarkStepsNormaliseWithAConfiguredImage() throws {
        for (text, key) in [
            ("watermark:0.5", "watermark:0.5:centre:0"), ("wm:1:SOEA:0.25", "watermark:1:southeast:0.25"),
            ("watermark:0.3:re", "watermark:0.3:re:0"), ("watermark:0.30:repeat:0.10", "watermark:0.3:re:0.1"),
        ] {
            let spec = try TransformSpec(parsing: text, watermark: Self.mark)
            #expect(spec.key == key)
            #expect(try TransformSpec(parsing: spec.key, watermark: Self.mark).key == key)
        }
    }

    @Test func equalRequestsShareAKeyWhateverTheirSpelling() throws {
        #expect(try TransformSpec(parsing: "resize:fit:100:50/dpr:2").key == TransformSpec(parsing: "resize:fit:200:100").key)
        #expect(try TransformSpec(parsing: "gray/trim").key == TransformSpec(parsing: "trim:10/grey").key)
        #expect(try TransformSpec(parsing: "resize:fill:9:9:sm").key == TransformSpec(parsing: "RESIZE:FILL:9:9:Smart:lanczos").key)
        #expect(try TransformSpec(parsing: "crop:9:9:fp:0.5:0.5").key != TransformSpec(parsing: "crop:9:9").key)
    }

    @Test func aWatermarkStepWithoutAnImageSaysSo() {
        #expect(throws: TransformSpecError.self) { try TransformSpec(parsing: "watermark:0.5") }
        do {
            _ = try TransformSpec(parsing: "watermark:0.5:re:0.2")
        } catch {
            #expect(error.description == "step 1 'watermark:0.5:re:0.2': no watermark image is configured")
        }
    }

    @Test func trimRunsFirstWhereverItIsWritten() throws {
        let spec = try TransformSpec(parsing: "resize:fit:4:4/trim")
        #expect(spec.steps.first is TrimTransformer)
        #expect(spec.shrinkOnLoad == nil, "a trim needs the full-size source")
    }

    @Test func backgroundColourIsOfferedToEncoders() throws {
        #expect(try TransformSpec(parsing: "background:ff0000/gray/bg:00ff00").backgroundColor == RGBAColor(red: 0, green: 255, blue: 0))
        #expect(try TransformSpec(parsing: "gray").backgroundColor == nil)
    }

    @Test func dprScalesTheRequestButNeverEnlargesUnlessAsked() throws {
        let large = try noiseImage(width: 40, height: 40, format: .rgb8)
        let small = try noiseImage(width: 15, height: 15, format: .rgb8)
        let spec = try TransformSpec(parsing: "resize:fit:10:10/dpr:2")
        #expect(try spec.transform(large).width == 20)
        #expect(try spec.transform(small).width == 15)
        #expect(try TransformSpec(parsing: "resize:fit:10:10:enlarge/dpr:2").transform(small).width == 20)
        #expect(try TransformSpec(parsing: "crop:10:10/dpr:2").transform(small).width == 15)
    }
}
