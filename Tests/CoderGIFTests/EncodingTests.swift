import AnimationReference
import CoderGIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("GIF encoding")
struct EncodingTests {
    let coder = GIFCoder()

    /// An RGBA image with exactly `colors` opaque colours plus fully transparent pixels.
    private func paletteImage(width: Int, height: Int, colors: Int, transparent: Bool) throws -> Image {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let index = (x * 7 + y * 13) % colors
                if transparent && (x + y) % 5 == 0 {
                    pixels += [0, 0, 0, 0]
                } else {
                    pixels += [UInt8(index * 37 & 0xFF), UInt8(index * 11 & 0xFF), UInt8(index), 255]
                }
            }
        }
        return try Image(width: width, height: height, pixelFormat: .rgba8, pixels: pixels)
    }

    @Test(arguments: [(256, false), (255, true), (2, false), (1, true)])
    func roundTripIsExactUpTo256Colours(_ colors: Int, _ transparent: Bool) throws {
        let image = try paletteImage(width: 61, height: 40, colors: colors, transparent: transparent)
        let decoded = try coder.decode(try coder.encode(image, as: .gif, options: EncodeOptions()), options: DecodeOptions())
        #expect(decoded.pixels == image.pixels)
        #expect(decoded.frameCount == 1 && decoded.loopCount == nil)
    }

    @Test func decodedFilesRoundTripExactly() throws {
        for path in ["gif/pillow/chi.gif", "gif/generated/anim_dispose_mixed.gif", "gif/generated/anim_local_palettes.gif", "gif/pillow/star.gif"] {
            let original = try coder.decode(try TestData.data(path), options: DecodeOptions())
            let again = try coder.decode(try coder.encode(original, as: .gif, options: EncodeOptions()), options: DecodeOptions())
            #expect(again.frameCount == original.frameCount && again.loopCount == original.loopCount, "\(path)")
            #expect(again.allFrames.map(\.duration) == original.allFrames.map(\.duration), "\(path)")
            #expect(allFramesHash(again) == allFramesHash(original), "\(path)")
        }
    }

    @Test func manyColoursGetAMedianCutPalette() throws {
        var pixels: [UInt8] = []
        for y in 0..<64 { for x in 0..<96 { pixels += [UInt8(x * 255 / 95), UInt8(y * 255 / 63), UInt8((x + y) & 0xFF)] } }
        let image = try Image(width: 96, height: 64, pixelFormat: .rgb8, pixels: pixels)
        let decoded = try coder.decode(try coder.encode(image, as: .gif, options: EncodeOptions()), options: DecodeOptions())
        let source = image.rgba8Pixels(), result = decoded.rgba8Pixels()
        let error = zip(source, result).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(error) / Double(source.count) < 4, "mean error per sample")
        var colours = Set<Int>()
        for p in stride(from: 0, to: result.count, by: 4) { colours.insert(Int(result[p]) << 16 | Int(result[p + 1]) << 8 | Int(result[p + 2])) }
        #expect(colours.count > 200, "the palette is used")
    }

    @Test func animationKeepsDurationsAndLoop() throws {
        let frames = try (0..<3).map { ImageFrame(image: try paletteImage(width: 20, height: 10, colors: 5 + $0, transparent: $0 == 1), duration: [0.5, 0.07, 2][$0]) }
        let decoded = try coder.decode(try coder.encode(try Image(animating: frames, loopCount: 4), as: .gif, options: EncodeOptions()), options: DecodeOptions())
        #expect(decoded.loopCount == 4)
        #expect(decoded.allFrames.map(\.duration) == [0.5, 0.07, 2])
        #expect(decoded.allFrames.map(\.image.pixels) == frames.map(\.image.pixels))
    }

    @Test func framesOfAnotherSizeAndOtherFormatsAreRefused() throws {
        var image = try paletteImage(width: 8, height: 8, colors: 3, transparent: false)
        #expect(throws: ImageKernelError.self) { try coder.encode(image, as: .webp, options: EncodeOptions()) }
        image.frames = [ImageFrame(image: try paletteImage(width: 4, height: 4, colors: 3, transparent: false), duration: 0.1)]
        let error = #expect(throws: ImageKernelError.self) { try coder.encode(image, as: .gif, options: EncodeOptions()) }
        #expect(error?.code == .invalidArgument)
    }
}
