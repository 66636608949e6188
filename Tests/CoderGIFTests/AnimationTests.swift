import AnimationReference
import CoderGIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("GIF animation and compositing")
struct AnimationTests {
    let coder = GIFCoder()

    @Test func firstFrameOnlyDecodesOneFrame() throws {
        let data = try TestData.data("gif/pillow/iss634.gif")
        let all = try coder.decode(data, options: DecodeOptions())
        let first = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true, maxFrameCount: 1))
        #expect(all.frameCount == 42 && first.frameCount == 1)
        #expect(first.pixels == all.pixels && first.loopCount == 0)
    }

    /// Browsers clear a dispose-to-background frame to transparent, whatever the background
    /// index; Pillow paints that index from the frame's table when it has no transparent index.
    @Test func disposeToBackgroundClearsToTransparent() throws {
        let image = try coder.decode(try TestData.data("gif/pillow/dispose_bgnd.gif"), options: DecodeOptions())
        // Frame 1 is disposed to background; frame 2 is drawn over what that leaves.
        let afterDisposal = image.allFrames[2].image.rgba8Pixels()
        #expect(stride(from: 3, to: afterDisposal.count, by: 4).contains { afterDisposal[$0] == 0 }, "the cleared area is transparent")
    }

    @Test func framesPastTheScreenAreClipped() throws {
        let image = try coder.decode(try TestData.data("gif/pillow/test_extents.gif"), options: DecodeOptions())
        #expect(image.frameCount == 2)
        #expect(image.frames[0].image.width == 100 && image.frames[0].image.height == 100)
    }

    @Test func thumbnailsScaleEveryFrame() throws {
        let image = try coder.decode(try TestData.data("gif/pillow/chi.gif"), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 80, height: 80)))
        #expect(image.frameCount == 31)
        #expect(image.allFrames.allSatisfy { $0.image.width == 80 && $0.image.height == 60 })
    }

    @Test func delaysOfTenMillisecondsOrLessPlayAsOneHundred() throws {
        let image = try coder.decode(try TestData.data("gif/pillow/dispose_prev.gif"), options: DecodeOptions())
        #expect(image.allFrames.map(\.duration) == [0.1, 1, 1, 1, 1], "the file says 0, 1000, 1000, 1000, 1000 ms")
    }
}
