import Foundation
import ImageKernel
import Testing

@testable import ImageKernelConformance

@Suite("Conformance support")
struct SupportTests {
    @Test(arguments: ImageFormat.sniffable)
    func signatureSamplesSniffAsTheirFormat(_ format: ImageFormat) throws {
        let sample = try #require(FormatSignatures.sample(format))
        #expect(ImageFormat.sniff(sample) == format)
    }

    @Test func randomInputsMatchNoSignature() {
        for (name, data) in CoderConformance.randomInputs {
            #expect(ImageFormat.sniff(data) == .unknown, "\(name)")
        }
    }

    @Test func randomInputsAreTheSameOnEveryRun() {
        var first = SeededRandom(seed: 42), second = SeededRandom(seed: 42)
        #expect(first.bytes(64) == second.bytes(64))
    }

    @Test func thumbnailRuleAcceptsExactAndCodecScaledSizes() {
        let target = PixelSize(width: 100, height: 100)
        // The fit of 400x300 in 100x100 is 100x75; rounding may make it one pixel smaller.
        #expect(CoderConformance.thumbnailProblem(PixelSize(width: 100, height: 75), width: 400, height: 300, target: target) == nil)
        #expect(CoderConformance.thumbnailProblem(PixelSize(width: 99, height: 74), width: 400, height: 300, target: target) == nil)
        #expect(CoderConformance.thumbnailProblem(PixelSize(width: 400, height: 300), width: 400, height: 300, target: PixelSize(width: 800, height: 800)) == nil)
    }

    @Test func thumbnailRuleRejectsWrongSizes() {
        let target = PixelSize(width: 100, height: 100)
        let wrong = [
            PixelSize(width: 134, height: 100),  // covers instead of fitting inside
            PixelSize(width: 200, height: 150),  // a codec scale left unresized
            PixelSize(width: 400, height: 300),  // not reduced
            PixelSize(width: 134, height: 134),  // aspect ratio lost
            PixelSize(width: 800, height: 600),  // upscaled
        ]
        for size in wrong {
            #expect(CoderConformance.thumbnailProblem(size, width: 400, height: 300, target: target) != nil, "\(size)")
        }
        #expect(CoderConformance.thumbnailProblem(PixelSize(width: 200, height: 150), width: 400, height: 300, target: PixelSize(width: 800, height: 800)) != nil)
    }

    @Test(arguments: SyntheticImage.allPixelFormats)
    func gradientsAreConsistentAndPaddingDoesNotChangeThePixels(_ format: PixelFormat) {
        let tight = SyntheticImage.gradient(width: 9, height: 4, format: format)
        let padded = SyntheticImage.gradient(width: 9, height: 4, format: format, padding: 6)
        #expect(ImageShape.problem(tight) == nil)
        #expect(ImageShape.problem(padded) == nil)
        #expect(padded.bytesPerRow == tight.bytesPerRow + 6)
        #expect(tight.rgba8Pixels() == padded.rgba8Pixels())
    }

    @Test func inconsistentImagesAreCaught() throws {
        var image = SyntheticImage.gradient(width: 4, height: 4, format: .rgba8)
        image.bytesPerRow = 8
        #expect(ImageShape.problem(image) != nil)
        image = SyntheticImage.gradient(width: 4, height: 4, format: .rgba8)
        image.pixels.removeLast()
        #expect(ImageShape.problem(image) != nil)
    }

    @Test func compositingOverWhiteMatchesTheFormula() {
        let rgba: [UInt8] = [0, 0, 0, 0, 255, 0, 0, 255, 100, 100, 100, 128]
        #expect(CoderConformance.composite(rgba, over: .white) == [255, 255, 255, 255, 255, 0, 0, 255, 177, 177, 177, 255])
    }

    @Test func failureAndReportDescriptionsNameSuiteCaseAndInput() {
        let failure = ConformanceFailure(suite: "S", caseName: "c", input: "'x.png' (3 bytes)", message: "broke")
        #expect(failure.description == "S.c failed on 'x.png' (3 bytes): broke")
        let report = ConformanceReport(suite: "S", failures: [failure, failure])
        #expect(report.description.components(separatedBy: "S.c failed").count == 3)
        #expect(report.failedCases == ["c", "c"])
    }

    @Test func describeShowsSizeAndLeadingBytes() {
        let text = Describe.bytes("a.png", Data([0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 0, count: 20)))
        #expect(text == "'a.png' (24 bytes: 89 50 4e 47 00 00 00 00 00 00 00 00 00 00 00 00…)")
        #expect(Describe.bytes("empty", Data()) == "'empty' (0 bytes)")
    }
}
