import AnimationReference
import CoderBMP
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("BMP and ICO: broken files, bombs, cut and hostile input")
struct HostileInputTests {
    let coder = BMPCoder(pngCoder: PNGCoder())
    static let dataCodes: [ImageKernelError.Code] = [.corruptData, .truncated, .unsupported, .pixelLimitExceeded]

    /// Pillow's ERROR rows under broken/, and what we give. Four decode: the palette size of
    /// badpalettesize.bmp is absurd but the 8-bit pixels only index 256 entries, which are
    /// there; rgb16-880.bmp's 8-8-0 masks are unusual, not invalid (it matches BMP Suite's
    /// correct display).
    static let errorRows: [(String, ImageKernelError.Code?)] = [
        ("broken/bmp/bmpsuite/b/badbitcount.bmp", .corruptData),
        ("broken/bmp/bmpsuite/b/badheadersize.bmp", .corruptData),
        ("broken/bmp/bmpsuite/b/badpalettesize.bmp", nil),
        ("broken/bmp/bmpsuite/b/badwidth.bmp", .corruptData),
        ("broken/bmp/bmpsuite/b/reallybig.bmp", .pixelLimitExceeded),
        ("broken/bmp/bmpsuite/b/rgb16-880.bmp", nil),
        ("broken/bmp/bmpsuite/b/shortfile.bmp", .truncated),
        ("broken/bmp/pillow/l2rgb_read.bmp", .truncated),
        ("broken/ico/pillow/decompression_bomb.ico", .pixelLimitExceeded),
        ("broken/ico/pillow/no_cursors.cur", .corruptData),
    ]

    @Test func errorRowsAreListed() {
        let listed = Set(Self.errorRows.map(\.0))
        #expect(Set(FormatReference.all.filter { $0.path.hasPrefix("broken/") && $0.isError }.map(\.path)) == listed)
    }

    @Test("ERROR rows give a typed error (or an image, as explained)", arguments: errorRows)
    func errorRowsGiveTypedErrors(_ path: String, _ code: ImageKernelError.Code?) throws {
        let data = try TestData.data(path)
        guard let code else {
            #expect(try coder.decode(data, options: DecodeOptions()).isConsistent)
            return
        }
        let error = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions()) }
        #expect(error?.code == code && error?.plugin == "CoderBMP" && error?.stage == .decode)
    }

    /// Files under broken/ that Pillow decodes: we decode them to Pillow's pixels (a lenient
    /// reader's answer to bad sizes, densities, planes, RLE overruns and indices past the palette).
    @Test("broken files Pillow decodes give Pillow's pixels", arguments: FormatReference.all.filter { $0.path.hasPrefix("broken/") && !$0.isError })
    func decodableBrokenRowsMatch(_ row: FormatReference) throws {
        let image = try coder.decode(try TestData.data(row.path), options: DecodeOptions())
        #expect(image.width == row.width && image.height == row.height)
        #expect(sha256Hex(rgba8(image)) == row.sha256)
    }

    static let brokenFiles: [String] = ["broken/bmp", "broken/ico"].flatMap { folder in
        let root = TestData.url(folder)
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { ["bmp", "ico", "cur"].contains($0.pathExtension.lowercased()) }
            .map { folder + "/" + $0.path.dropFirst(root.path.count + 1) }.sorted()
    }

    @Test func everyBrokenFileGivesATypedErrorOrAnImageWithoutALargeAllocation() throws {
        #expect(Self.brokenFiles.count == 27, "20 BMP, 7 ICO/CUR")
        for path in Self.brokenFiles {
            let data = try TestData.data(path)
            let (outcome, bytes) = try MemoryProbe.peakGrowth { () -> Result<Image, ImageKernelError> in
                Result { () throws(ImageKernelError) in try coder.decode(data, options: DecodeOptions()) }
            }
            switch outcome {
            case .success(let image): #expect(image.isConsistent, "\(path)")
            case .failure(let error): #expect(Self.dataCodes.contains(error.code) && error.plugin == "CoderBMP", "\(path): \(error)")
            }
            #expect(MemoryProbe.underSanitizer || bytes < 64 << 20, "\(path): peak growth \(bytes) bytes")
        }
    }

    /// A 40-byte-header BMP declaring `width`×`height` at `bits` per pixel with `payload` after it.
    static func lyingBMP(width: Int32, height: Int32, bits: UInt16, compression: UInt32 = 0, payload: [UInt8] = [0, 0, 0, 0]) -> Data {
        var b: [UInt8] = Array("BM".utf8)
        func u32(_ v: UInt32) { b += withUnsafeBytes(of: v.littleEndian, Array.init) }
        func u16(_ v: UInt16) { b += withUnsafeBytes(of: v.littleEndian, Array.init) }
        u32(UInt32(54 + payload.count)); u32(0); u32(54)
        u32(40); u32(UInt32(bitPattern: width)); u32(UInt32(bitPattern: height)); u16(1); u16(bits)
        u32(compression); u32(0); u32(0); u32(0); u32(0); u32(0)
        return Data(b + payload)
    }

    @Test func aHeaderLyingAboutAHugeSizeIsRefusedBeforeAllocating() throws {
        // 15000 × 15000 × 24-bit = 675 MB of pixels (under the default limit) claimed by a 58-byte file.
        let lying = Self.lyingBMP(width: 15000, height: 15000, bits: 24)
        let (truncated, bytes) = try MemoryProbe.peakGrowth { Result { () throws(ImageKernelError) in try coder.decode(lying, options: DecodeOptions()) } }
        #expect((try? truncated.get()) == nil)
        if case .failure(let error) = truncated { #expect(error.code == .truncated) }
        #expect(MemoryProbe.underSanitizer || bytes < 16 << 20, "peak growth \(bytes) bytes")
        // Under a pixel limit it is refused for its size first.
        let limited = #expect(throws: ImageKernelError.self) { try coder.decode(lying, options: DecodeOptions(pixelLimit: 1_000_000)) }
        #expect(limited?.code == .pixelLimitExceeded)
        // RLE needs no data to fill a canvas (end of bitmap at once): only the limit stops it.
        let rle = Self.lyingBMP(width: 20000, height: 20000, bits: 8, compression: 1, payload: [0, 1])
        let (refused, rleBytes) = try MemoryProbe.peakGrowth {
            Result { () throws(ImageKernelError) in try coder.decode(rle, options: DecodeOptions(pixelLimit: 100_000_000)) }
        }
        if case .failure(let error) = refused { #expect(error.code == .pixelLimitExceeded) } else { Issue.record("RLE bomb decoded") }
        #expect(MemoryProbe.underSanitizer || rleBytes < 16 << 20, "peak growth \(rleBytes) bytes")
        // Dimensions that overflow a row size are corrupt, not a trap.
        let overflow = #expect(throws: ImageKernelError.self) {
            try coder.decode(Self.lyingBMP(width: Int32.max, height: Int32.min, bits: 64), options: DecodeOptions(pixelLimit: Int.max))
        }
        #expect(overflow.map { Self.dataCodes.contains($0.code) } == true)
    }

    /// The ten smallest BMP files and the ten smallest ICO/CUR files of the corpus.
    static let smallestFiles: [String] = {
        func smallest(_ folders: [String], _ extensions: [String]) -> [String] {
            let sized: [(String, Int)] = folders.flatMap { folder -> [(String, Int)] in
                let root = TestData.url(folder)
                let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.fileSizeKey])?.compactMap { $0 as? URL } ?? []
                return files.filter { extensions.contains($0.pathExtension.lowercased()) }.map {
                    (folder + "/" + $0.path.dropFirst(root.path.count + 1), (try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
                }
            }
            return sized.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(10).map(\.0)
        }
        return smallest(["bmp"], ["bmp"]) + smallest(["ico"], ["ico", "cur"])
    }()

    @Test("every prefix gives a typed error or an image", arguments: smallestFiles)
    func everyPrefixIsHandled(_ path: String) throws {
        let data = try TestData.data(path)
        for length in 0..<data.count {
            do {
                let image = try coder.decode(data.prefix(length), options: DecodeOptions())
                #expect(image.isConsistent && image.allFrames.allSatisfy { $0.image.isConsistent }, "\(path) cut to \(length) bytes")
            } catch {
                #expect(Self.dataCodes.contains(error.code) && error.plugin == "CoderBMP", "\(path) cut to \(length): \(error)")
            }
        }
    }

    @Test func flippedBytesNeverCrash() throws {
        for path in Self.smallestFiles + ["bmp/bmpsuite/g/pal4rle.bmp", "bmp/bmpsuite/q/rgba32-81284.bmp", "ico/pillow/pillow.ico"] {
            for data in flippedVariants(of: [UInt8](try TestData.data(path)), count: 200, seed: 4242, from: 2) {
                do {
                    let image = try coder.decode(data, options: DecodeOptions(pixelLimit: 4_000_000))
                    #expect(image.isConsistent && image.allFrames.allSatisfy { $0.image.isConsistent })
                } catch {
                    #expect(error.plugin == "CoderBMP", "\(path): \(error)")
                }
            }
        }
    }
}
