import AnimationReference
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("WebP: broken, cut and hostile input")
struct HostileInputTests {
    let coder = WebPCoder()

    /// Both files are in libwebp's own decode list with expected output, so they decode.
    @Test func brokenFolderFilesDecodeAsLibwebpExpects() throws {
        let short = try coder.decode(try TestData.data("broken/webp/libwebp-test-data/very_short.webp"), options: DecodeOptions())
        #expect(short.width == 63 && short.height == 66)
        let palette = try coder.decode(try TestData.data("broken/webp/libwebp-test-data/bad_palette_index.webp"), options: DecodeOptions())
        #expect(palette.pixelFormat == .rgba8, "a lossless bitstream decodes ARGB whatever its alpha hint")
        let rgba = palette.rgba8Pixels()
        let transparentBlack = stride(from: 0, to: rgba.count, by: 4).filter { rgba[$0..<$0 + 4].allSatisfy { $0 == 0 } }.count
        #expect(transparentBlack == 4096, "out-of-range palette indices are transparent black (libwebp_tests.md5)")
    }

    /// Ten small files (lossy, alpha, lossless, animated, VP8X with EXIF) cut at every length.
    static let prefixFiles = [
        "broken/webp/libwebp-test-data/very_short.webp", "webp/libwebp-test-data/lossy_alpha1.webp",
        "webp/libwebp-test-data/lossless_vec_1_0.webp", "webp/libwebp-test-data/lossless_vec_2_13.webp",
        "webp/libwebp-test-data/alpha_filter_1.webp", "webp/libwebp-test-data/bug3.webp",
        "webp/generated/still_lossless_alpha.webp", "webp/generated/anim_blend_alpha.webp",
        "webp/pillow/anim_frame1.webp", "webp/libwebp-test-data/test.webp",
    ]

    @Test("every prefix gives a typed error or an image, whole and incremental", arguments: prefixFiles)
    func everyPrefixIsHandled(_ path: String) throws {
        let data = try TestData.data(path)
        let step = max(1, data.count / 1500)  // every length for small files, 1500 lengths for larger ones
        for length in stride(from: 0, to: data.count, by: step) {
            let prefix = data.prefix(length)
            do {
                let image = try coder.decode(prefix, options: DecodeOptions())
                #expect(image.isConsistent, "\(path) cut to \(length) bytes")
            } catch {
                #expect(error.plugin == "CoderWebP" && error.stage == .decode)
                #expect([.truncated, .corruptData, .unsupported].contains(error.code), "\(path) cut to \(length): \(error)")
            }
            let progressive = coder.makeProgressiveDecoder(options: DecodeOptions())
            do {
                // A preview, or the final image when the bitstream happens to be complete.
                if let preview = try progressive.append(prefix) {
                    #expect(preview.isConsistent, "\(path) cut to \(length) bytes, incremental")
                }
            } catch {
                #expect(error.plugin == "CoderWebP")
            }
        }
    }

    @Test func flippedBytesNeverCrash() throws {
        for path in Self.prefixFiles {
            for data in flippedVariants(of: [UInt8](try TestData.data(path)), count: 200, seed: 12345, from: 12) {
                if let image = try? coder.decode(data, options: DecodeOptions(pixelLimit: 4_000_000)) {
                    #expect(image.isConsistent && image.allFrames.allSatisfy { $0.image.isConsistent })
                }
            }
        }
    }

    @Test func headerOverThePixelLimitIsRefusedBeforeDecoding() throws {
        let bryce = try TestData.data("webp/libwebp-test-data/bryce.webp")  // 11158x2156
        let error = #expect(throws: ImageKernelError.self) { try coder.decode(bryce, options: DecodeOptions(pixelLimit: 1_000_000)) }
        #expect(error?.code == .pixelLimitExceeded)
        // 24 megapixels is over the default scale-down ceiling of 4 × 1 megapixel: refused too.
        let overCeiling = #expect(throws: ImageKernelError.self) {
            try coder.decode(bryce, options: DecodeOptions(pixelLimit: 1_000_000, scaleDownLargeImages: true))
        }
        #expect(overCeiling?.code == .pixelLimitExceeded && overCeiling?.message.contains("ceiling") == true)
        let options = DecodeOptions(pixelLimit: 1_000_000, scaleDownLargeImages: true, scaleDownSourcePixelLimit: 11158 * 2156)
        let scaled = try coder.decode(bryce, options: options)
        #expect(scaled.pixelCount <= 1_000_000 && scaled.pixelCount > 900_000)
        #expect(abs(Double(scaled.width) / Double(scaled.height) - 11158.0 / 2156.0) < 0.01)
    }

    /// A VP8L header claiming 16383x16383 (268 megapixels) and no bitstream: with a 10-megapixel
    /// limit and scaleDownLargeImages it is over the default ceiling (40 megapixels) and refused
    /// from the header, by the still and the progressive decoder alike.
    @Test func aHeaderOverTheScaleDownCeilingIsRefusedFromTheHeader() throws {
        let options = DecodeOptions(pixelLimit: 10_000_000, scaleDownLargeImages: true)
        let data = Self.losslessHeader(width: 16383, height: 16383)
        let error = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: options) }
        #expect(error?.code == .pixelLimitExceeded && error?.plugin == "CoderWebP")
        #expect(error?.message.contains("ceiling") == true)
        let progressive = coder.makeProgressiveDecoder(options: options)
        let partial = #expect(throws: ImageKernelError.self) { _ = try progressive.append(data) }
        #expect(partial?.code == .pixelLimitExceeded)
    }

    @Test func aSourceJustWithinTheScaleDownCeilingStillScalesDown() throws {
        let bryce = try TestData.data("webp/libwebp-test-data/bryce.webp")  // 11158x2156 = 24,056,648 = 4 × 6,014,162
        let image = try coder.decode(bryce, options: DecodeOptions(pixelLimit: 6_014_162, scaleDownLargeImages: true))
        #expect(image.pixelCount <= 6_014_162 && image.pixelCount > 5_900_000)
        let error = #expect(throws: ImageKernelError.self) {
            try coder.decode(bryce, options: DecodeOptions(pixelLimit: 6_014_161, scaleDownLargeImages: true))
        }
        #expect(error?.code == .pixelLimitExceeded)
    }

    /// A RIFF/VP8L header for `width`×`height` with a few bytes of (meaningless) bitstream.
    static func losslessHeader(width: Int, height: Int) -> Data {
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14
        let chunk: [UInt8] = [0x2F] + le32(bits) + [UInt8](repeating: 0, count: 11)
        let body = Array("WEBP".utf8) + Array("VP8L".utf8) + le32(UInt32(chunk.count)) + chunk
        return Data(Array("RIFF".utf8) + le32(UInt32(body.count)) + body)
    }
}
