import AnimationReference
import CoderGIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("GIF: bombs, cut and hostile input")
struct HostileInputTests {
    let coder = GIFCoder()

    /// Pillow refuses all three (the ERROR rows); so do we, from the blocks, without allocating.
    /// decompression_bomb.gif's 65535x1321 frame sits 65280 rows below its 32x32 screen; its
    /// LZW code size (143) is invalid, which the block reader finds first.
    @Test(arguments: [
        ("broken/gif/pillow/decompression_bomb.gif", ImageKernelError.Code.corruptData),
        ("broken/gif/pillow/decompression_bomb_extents.gif", .pixelLimitExceeded),
        ("broken/gif/pillow/zero_width.gif", .corruptData),
    ])
    func errorRowsGiveTypedErrors(_ path: String, _ code: ImageKernelError.Code) throws {
        let data = try TestData.data(path)
        let error = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions()) }
        #expect(error?.code == code && error?.plugin == "CoderGIF" && error?.stage == .decode)
    }

    @Test func bombsAreRefusedWithoutALargeAllocation() throws {
        for path in ["broken/gif/pillow/decompression_bomb.gif", "broken/gif/pillow/decompression_bomb_extents.gif"] {
            let data = try TestData.data(path)
            let (_, bytes) = try MemoryProbe.peakGrowth { _ = try? coder.decode(data, options: DecodeOptions()) }
            // The grown canvases would be 4.3 G pixels; the bound leaves room for tests that run
            // beside this one in the same process.
            #expect(MemoryProbe.underSanitizer || bytes < 256 << 20, "\(path): peak growth \(bytes) bytes")
        }
    }

    static let prefixFiles = [
        "gif/generated/anim_dispose_mixed.gif", "gif/generated/anim_local_palettes.gif", "gif/generated/still_interlaced.gif",
        "gif/generated/one_pixel.gif", "gif/pillow/dispose_prev.gif", "gif/pillow/star.gif", "gif/pillow/no_palette.gif",
        "gif/pillow/duplicate_number_of_loops.gif", "gif/pillow/missing_background.gif", "gif/pillow/transparent_dispose.gif",
    ]

    @Test("every prefix gives a typed error or an image", arguments: prefixFiles)
    func everyPrefixIsHandled(_ path: String) throws {
        let data = try TestData.data(path)
        let step = max(1, data.count / 1500)
        for length in stride(from: 0, to: data.count, by: step) {
            do {
                let image = try coder.decode(data.prefix(length), options: DecodeOptions())
                #expect(image.isConsistent && image.allFrames.allSatisfy { $0.image.isConsistent }, "\(path) cut to \(length) bytes")
            } catch {
                #expect([.truncated, .corruptData].contains(error.code) && error.plugin == "CoderGIF", "\(path) cut to \(length): \(error)")
            }
        }
    }

    @Test func flippedBytesNeverCrash() throws {
        for path in Self.prefixFiles {
            for data in flippedVariants(of: [UInt8](try TestData.data(path)), count: 200, seed: 777, from: 6) {
                if let image = try? coder.decode(data, options: DecodeOptions(pixelLimit: 4_000_000)) {
                    #expect(image.isConsistent && image.allFrames.allSatisfy { $0.image.isConsistent })
                }
            }
        }
    }

    @Test func animationBudgetRefusesBeforeDecoding() throws {
        let data = try TestData.data("gif/pillow/chi.gif")  // 31 frames of 320x240
        let frames = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions(maxFrameCount: 30)) }
        #expect(frames?.code == .pixelLimitExceeded)
        let pixels = #expect(throws: ImageKernelError.self) {
            try coder.decode(data, options: DecodeOptions(animationPixelLimit: 31 * 320 * 240 - 1))
        }
        #expect(pixels?.code == .pixelLimitExceeded)
        #expect(try coder.decode(data, options: DecodeOptions(animationPixelLimit: 31 * 320 * 240)).frameCount == 31)
        let limited = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions(pixelLimit: 320 * 240 - 1)) }
        #expect(limited?.code == .pixelLimitExceeded)
    }
}
