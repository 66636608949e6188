import AnimationReference
import CoderTIFF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("TIFF: lying headers, cut and hostile input")
struct HostileInputTests {
    let coder = TIFFCoder()

    static let brokenFiles: [String] = {
        let root = TestData.url("broken/tiff")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { ["tif", "tiff"].contains($0.pathExtension) }
            .map { String($0.path.dropFirst(TestData.url("").path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/")) }
            .sorted()
    }()

    @Test func corpusHasBrokenTIFFs() {
        #expect(Self.brokenFiles.count == 20)
    }

    @Test("every broken file gives a typed error or an image, without a large allocation", arguments: brokenFiles)
    func brokenFileIsHandled(_ path: String) throws {
        let data = try TestData.data(path)
        for pages in [TIFFCoder.Pages.first, .all] {
            let (outcome, bytes) = try MemoryProbe.peakGrowth { () -> Result<Image, ImageKernelError> in
                Result { () throws(ImageKernelError) -> Image in try TIFFCoder(pages: pages).decode(data, options: DecodeOptions()) }
            }
            switch outcome {
            case .success(let image):
                #expect(image.isConsistent && image.allFrames.allSatisfy { $0.image.isConsistent }, "\(path)")
            case .failure(let error):
                #expect(error.plugin == "CoderTIFF" && error.stage == .decode && error.code != .internalError, "\(path): \(error)")
            }
            // The largest file here is a few KB; the bound leaves room for tests running beside it.
            #expect(MemoryProbe.underSanitizer || bytes < 256 << 20, "\(path): peak growth \(bytes) bytes")
        }
    }

    /// A little-endian TIFF header with one IFD that claims `width`×`height` 8-bit RGB in one
    /// uncompressed strip of 16 bytes.
    static func lyingHeader(width: UInt32, height: UInt32) -> Data {
        var bytes: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { bytes += (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let entries: [(UInt16, UInt16, UInt32)] = [
            (256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 1), (262, 3, 2), (273, 4, 200), (277, 3, 3),
            (278, 4, height), (279, 4, 16),
        ]
        u16(UInt16(entries.count))
        for (tag, type, value) in entries {
            u16(tag)
            u16(type)
            u32(1)
            if type == 3 { u16(UInt16(value)); u16(0) } else { u32(value) }
        }
        u32(0)
        bytes += [UInt8](repeating: 0, count: 200 + 16 - bytes.count)
        return Data(bytes)
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
        #expect(error.code == .pixelLimitExceeded && error.plugin == "CoderTIFF")
        #expect(MemoryProbe.underSanitizer || bytes < 64 << 20, "peak growth \(bytes) bytes")
        // The same header within the limit is a truncated file, not a crash or a hang.
        let small = #expect(throws: ImageKernelError.self) {
            try coder.decode(Self.lyingHeader(width: 3000, height: 3000), options: DecodeOptions())
        }
        #expect(small.map { [.truncated, .corruptData].contains($0.code) } == true, "\(String(describing: small))")
    }

    /// The 10 smallest TIFFs of the corpus (outside broken/).
    static let smallestFiles = TestData.smallestFiles(FormatsReference.tiffRows.filter { $0.path.hasPrefix("tiff/") }.map(\.path))

    @Test("every prefix gives a typed error or an image", arguments: smallestFiles)
    func everyPrefixIsHandled(_ path: String) throws {
        let data = try TestData.data(path)
        for length in 0..<data.count {
            do {
                let image = try coder.decode(data.prefix(length), options: DecodeOptions())
                #expect(image.isConsistent, "\(path) cut to \(length) bytes")
            } catch {
                #expect(error.plugin == "CoderTIFF" && error.stage == .decode && error.code != .internalError, "\(path) cut to \(length): \(error)")
            }
        }
    }

    @Test func flippedBytesNeverCrash() throws {
        for path in Self.smallestFiles + ["tiff/derived/hopper_lzw_tiled64.tif", "tiff/derived/hopper_rgb16_lzw_planar.tif"] {
            for data in flippedVariants(of: [UInt8](try TestData.data(path)), count: 100, seed: 4242, from: 8) {
                if let image = try? coder.decode(data, options: DecodeOptions(pixelLimit: 4_000_000)) {
                    #expect(image.isConsistent)
                }
            }
        }
    }

    @Test func pageBudgetRefusesBeforeDecoding() throws {
        // 3 pages (10x10, 10x10, 20x20); the budget counts every page, frames or not.
        let data = try TestData.data("tiff/pillow/multipage.tiff")
        let all = TIFFCoder(pages: .all)
        let frames = #expect(throws: ImageKernelError.self) { try all.decode(data, options: DecodeOptions(maxFrameCount: 2)) }
        #expect(frames?.code == .pixelLimitExceeded)
        let pixels = #expect(throws: ImageKernelError.self) { try all.decode(data, options: DecodeOptions(animationPixelLimit: 299)) }
        #expect(pixels?.code == .pixelLimitExceeded)
        #expect(try all.decode(data, options: DecodeOptions(animationPixelLimit: 300)).frameCount == 2)
        // Page 0 only needs no budget.
        #expect(try coder.decode(data, options: DecodeOptions(maxFrameCount: 1)).frameCount == 1)
    }
}
