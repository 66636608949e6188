import ImageKernel
import Testing

@Suite("Animation model")
struct AnimationModelTests {
    private func frame(_ value: UInt8, _ duration: Double) throws -> ImageFrame {
        ImageFrame(image: try Image(width: 2, height: 1, pixelFormat: .gray8, pixels: [value, value]), duration: duration)
    }

    @Test func animatingFramesPutsFrameZeroOnTheImage() throws {
        let image = try Image(animating: [frame(1, 0.1), frame(2, 0.2), frame(3, 0.3)], loopCount: 0)
        #expect(image.pixels == [1, 1])
        #expect(image.duration == 0.1)
        #expect(image.loopCount == 0)
        #expect(image.frameCount == 3)
        #expect(image.isAnimated)
        #expect(image.allFrames.map(\.duration) == [0.1, 0.2, 0.3])
        #expect(image.allFrames.map { $0.image.pixels[0] } == [1, 2, 3])
        #expect(image.allFrames[0].image.frames.isEmpty, "frame 0 of allFrames carries no frames of its own")
    }

    @Test func stillImagesHaveOneFrameAndNoLoop() throws {
        let still = try Image(width: 1, height: 1, pixelFormat: .gray8, pixels: [0])
        #expect(still.frameCount == 1)
        #expect(!still.isAnimated)
        #expect(still.loopCount == nil)
        #expect(still.duration == 0)
        #expect(throws: ImageKernelError.self) { try Image(animating: [], loopCount: nil) }
    }

    @Test func animationBudgetRefusesBombsBeforeDecoding() throws {
        let options = DecodeOptions(maxFrameCount: 100, animationPixelLimit: 10_000)
        let canvas = PixelSize(width: 10, height: 10)
        try options.checkAnimationBudget(frameCount: 100, canvas: canvas, plugin: "P")
        let tooMany = #expect(throws: ImageKernelError.self) { try options.checkAnimationBudget(frameCount: 101, canvas: canvas, plugin: "P") }
        #expect(tooMany?.code == .pixelLimitExceeded)
        #expect(tooMany?.plugin == "P")
        let tooLarge = #expect(throws: ImageKernelError.self) {
            try options.checkAnimationBudget(frameCount: 2, canvas: PixelSize(width: 100, height: 51), plugin: "P")
        }
        #expect(tooLarge?.code == .pixelLimitExceeded)
        #expect(throws: ImageKernelError.self) {
            try options.checkAnimationBudget(frameCount: 3, canvas: PixelSize(width: Int.max / 2, height: 2), plugin: "P")
        }
    }

    @Test func keepFirstKeepsTheFirstFramesWithinThePixelBudget() throws {
        var options = DecodeOptions(maxFrameCount: 5, animationPixelLimit: 500)
        options.framesOverLimit = .keepFirst
        let canvas = PixelSize(width: 10, height: 10)
        #expect(try options.checkAnimationBudget(frameCount: 31, canvas: canvas, plugin: "P") == 5)
        #expect(try options.checkAnimationBudget(frameCount: 3, canvas: canvas, plugin: "P") == 3)
        // The budget counts the frames kept: 5 of 101 pixels are over 500.
        let tooLarge = #expect(throws: ImageKernelError.self) {
            try options.checkAnimationBudget(frameCount: 31, canvas: PixelSize(width: 101, height: 1), plugin: "P")
        }
        #expect(tooLarge?.code == .pixelLimitExceeded && tooLarge?.plugin == "P")
        options.maxFrameCount = 1
        #expect(try options.checkAnimationBudget(frameCount: 31, canvas: PixelSize(width: 1000, height: 1000), plugin: "P") == 1, "a still")
        options.maxFrameCount = 0
        #expect(throws: ImageKernelError.self) { try options.checkAnimationBudget(frameCount: 2, canvas: canvas, plugin: "P") }
    }

    @Test func firstFrameOnlyAndStillsSkipTheBudget() throws {
        let canvas = PixelSize(width: 1000, height: 1000)
        #expect(throws: Never.self) {
            try DecodeOptions(firstFrameOnly: true, animationPixelLimit: 1).checkAnimationBudget(frameCount: 50, canvas: canvas, plugin: "P")
        }
        #expect(throws: Never.self) {
            try DecodeOptions(animationPixelLimit: 1).checkAnimationBudget(frameCount: 1, canvas: canvas, plugin: "P")
        }
    }
}

@Suite("Area downscale")
struct AreaDownscaleRGBA8Tests {
    @Test func averagesBoxesPremultiplied() throws {
        // 4x2 RGBA: left box opaque red + transparent green, right box two opaque blues.
        let pixels: [UInt8] = [
            255, 0, 0, 255, 0, 255, 0, 0, 0, 0, 200, 255, 0, 0, 100, 255,
            255, 0, 0, 255, 0, 255, 0, 0, 0, 0, 200, 255, 0, 0, 100, 255,
        ]
        let image = try Image(width: 4, height: 2, pixelFormat: .rgba8, pixels: pixels, loopCount: 0)
        let small = image.areaDownscaledRGBA8(to: PixelSize(width: 2, height: 1))
        #expect(small.width == 2 && small.height == 1)
        #expect(small.pixels == [255, 0, 0, 128, 0, 0, 150, 255], "transparent green does not tint the red")
        #expect(small.loopCount == 0)
    }

    @Test func sameSizeOnlyConverts() throws {
        let image = try Image(width: 1, height: 1, pixelFormat: .gray8, pixels: [9])
        let same = image.areaDownscaledRGBA8(to: PixelSize(width: 5, height: 5))
        #expect(same.pixels == [9, 9, 9, 255])
        #expect(same.pixelFormat == .rgba8)
    }
}
