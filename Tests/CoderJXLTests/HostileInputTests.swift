import AnimationReference
import CoderJXL
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("JPEG XL: lying headers, cut, fuzzed and hostile input")
struct HostileInputTests {
    let coder = JXLCoder()

    @Test func corpusHasBrokenJPEGXLs() {
        #expect(FormatsReferenceRow.brokenJXLFiles.count == 39)
        // Every broken file has its row; djxl 0.7 decodes six of them.
        let brokenRows = FormatsReferenceRow.jxlRows.filter { $0.path.hasPrefix("broken/jxl/") }
        #expect(brokenRows.count == 39 && brokenRows.filter(\.isError).count == 33)
    }

    /// Six fuzzed files are images djxl 0.7 decodes (their rows have a hash): ours may decode
    /// them too, to the same pixels, or refuse them with a typed error.
    @Test("every broken file gives a typed error or an image, without a large allocation", arguments: FormatsReferenceRow.brokenJXLFiles)
    func brokenFileIsHandled(_ path: String) throws {
        let data = try TestData.data(path)
        let row = FormatsReferenceRow.jxlRows.first { $0.path == path }
        for options in [DecodeOptions(), DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))] {
            let (outcome, bytes) = try MemoryProbe.peakGrowth { () -> Result<Image, ImageKernelError> in
                Result { () throws(ImageKernelError) -> Image in try coder.decode(data, options: options) }
            }
            switch outcome {
            case .success(let image):
                #expect(image.isConsistent && image.allFrames.allSatisfy { $0.image.isConsistent }, "\(path)")
                if let row, !row.isError, options.thumbnailPixelSize == nil {
                    let shown = applying(image.orientation, to: image.rgba8Pixels(), width: image.width, height: image.height)
                    #expect(sha256Hex(shown.pixels) == row.sha256, "\(path)")
                }
            case .failure(let error):
                #expect(error.plugin == "CoderJXL" && error.stage == .decode && error.code != .internalError, "\(path): \(error)")
            }
            #expect(MemoryProbe.underSanitizer || bytes < 256 << 20, "\(path): peak growth \(bytes) bytes")
        }
    }

    /// A bare codestream whose SizeHeader declares `width` x `height` 8-bit RGB (no pixel data).
    static func lyingHeader(width: UInt32, height: UInt32) -> Data {
        var bits: [Bool] = []
        func put(_ value: UInt32, _ count: Int) { for i in 0..<count { bits.append((value >> UInt32(i)) & 1 == 1) } }
        put(0x0AFF, 16)
        // SizeHeader: not small; height and width as U32(1 + 30 bits) with selector 3.
        put(0, 1)
        put(3, 2)
        put(height - 1, 30)
        put(0, 3)  // ratio 0: explicit width
        put(3, 2)
        put(width - 1, 30)
        // ImageMetadata: all_default.
        put(1, 1)
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: bits.count, by: 8) {
            var byte: UInt8 = 0
            for (i, bit) in bits[start..<min(bits.count, start + 8)].enumerated() where bit { byte |= 1 << UInt8(i) }
            bytes.append(byte)
        }
        return Data(bytes + [UInt8](repeating: 0, count: 64))
    }

    @Test func headerLyingAboutItsSizeIsRefusedBeforeAllocating() throws {
        let data = Self.lyingHeader(width: 100_000, height: 100_000)
        #expect(coder.canDecode(data))
        let (outcome, bytes) = try MemoryProbe.peakGrowth {
            Result { () throws(ImageKernelError) -> Image in try coder.decode(data, options: DecodeOptions()) }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("a 100000x100000 header decoded")
            return
        }
        #expect(error.code == .pixelLimitExceeded && error.plugin == "CoderJXL", "\(error)")
        #expect(MemoryProbe.underSanitizer || bytes < 64 << 20, "peak growth \(bytes) bytes")
        // scaleDownLargeImages does not read 10 gigapixels either: over the scale-down ceiling.
        let scaled = #expect(throws: ImageKernelError.self) {
            try coder.decode(data, options: DecodeOptions(scaleDownLargeImages: true))
        }
        #expect(scaled?.code == .pixelLimitExceeded)
        // The same header within the limit is a cut file, not a crash or a hang.
        let small = #expect(throws: ImageKernelError.self) { try coder.decode(Self.lyingHeader(width: 3000, height: 3000), options: DecodeOptions()) }
        #expect(small.map { [.truncated, .corruptData].contains($0.code) } == true, "\(String(describing: small))")
    }

    /// The 10 smallest JPEG XLs of the corpus (outside broken/).
    static let smallestFiles: [String] = {
        let rows = FormatsReferenceRow.jxlRows.filter { $0.path.hasPrefix("jxl/") }
        let sized = rows.compactMap { row -> (String, Int)? in
            guard let data = try? TestData.data(row.path) else { return nil }
            return (row.path, data.count)
        }
        return sized.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(10).map(\.0)
    }()

    /// The smallest files are tiny codestreams of large images (2048x2048 splines, 1024x1024
    /// layers): rendering each of their prefixes would take minutes. Prefixes are decoded with a
    /// pixel limit of 1 MP, so those images stop at the header (a typed `pixelLimitExceeded`
    /// after libjxl parsed every prefix of it), except the 8 longest prefixes, which render in
    /// full; the images under 1 MP render at every prefix.
    @Test("every prefix gives a typed error or an image", arguments: smallestFiles)
    func everyPrefixIsHandled(_ path: String) throws {
        let data = try TestData.data(path)
        let coder = JXLCoder(threads: 0)
        for length in 0..<data.count {
            let options = length >= data.count - 8 ? DecodeOptions() : DecodeOptions(pixelLimit: 1_000_000)
            do {
                let image = try coder.decode(data.prefix(length), options: options)
                #expect(image.isConsistent, "\(path) cut to \(length) bytes")
            } catch {
                #expect(error.plugin == "CoderJXL" && error.stage == .decode && error.code != .internalError, "\(path) cut to \(length): \(error)")
            }
        }
    }

    @Test func flippedBytesNeverCrash() throws {
        for path in Self.smallestFiles.prefix(6) {
            for data in flippedVariants(of: [UInt8](try TestData.data(path)), count: 60, seed: 4242, from: 12) {
                if let image = try? coder.decode(data, options: DecodeOptions(pixelLimit: 4_000_000)) {
                    #expect(image.isConsistent)
                }
            }
        }
    }

    @Test func frameBudgetRefusesBeforeRendering() throws {
        // 48 frames of 128x128.
        let data = try TestData.data("jxl/conformance/animation_icos4d.jxl")
        let frames = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions(maxFrameCount: 47)) }
        #expect(frames?.code == .pixelLimitExceeded)
        let pixels = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions(animationPixelLimit: 48 * 128 * 128 - 1)) }
        #expect(pixels?.code == .pixelLimitExceeded)
        #expect(try coder.decode(data, options: DecodeOptions(animationPixelLimit: 48 * 128 * 128)).frameCount == 48)
        // The first frame alone needs no budget.
        #expect(try coder.decode(data, options: DecodeOptions(firstFrameOnly: true, maxFrameCount: 1)).frameCount == 1)
    }
}
