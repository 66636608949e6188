import CoderHEIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("HEIF hostile input")
struct HostileInputTests {
    static let dataCodes: Set<ImageKernelError.Code> = [.corruptData, .unsupported, .truncated]

    @Test("every file under broken/heif gives a typed error")
    func brokenFiles() throws {
        let root = TestData.url("broken/heif")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
            .compactMap { $0 as? URL }.filter { ["heic", "heif", "avif"].contains($0.pathExtension) }
        #expect(files.count >= 11)
        for file in files {
            let data = try Data(contentsOf: file)
            do {
                _ = try HEIFCoder().decode(data, options: DecodeOptions())
                Issue.record("\(file.lastPathComponent) decoded")
            } catch {
                #expect(Self.dataCodes.contains(error.code), "\(file.lastPathComponent): \(error)")
            }
        }
    }

    /// fuzz-heif's find: an `ispe` whose sides multiply past Int.max was refused, and then the
    /// error's message multiplied them again and trapped.
    @Test func anIspeWhoseAreaOverflowsIsAPixelLimitError() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/regressions/fuzz-heif/ispe-area-overflow.heic")
        let data = try Data(contentsOf: file)
        #expect {
            _ = try HEIFCoder().decode(data, options: DecodeOptions())
        } throws: { error in
            (error as? ImageKernelError)?.code == .pixelLimitExceeded && "\(error)".contains("more than")
        }
    }

    @Test("every prefix of ten files gives a typed error or an image", arguments: Fixtures.smallestDecodable)
    func everyPrefix(_ path: String) throws {
        let data = try TestData.data(path)
        var refused = 0
        for length in 0..<data.count {
            do {
                let image = try HEIFCoder().decode(data.prefix(length), options: DecodeOptions())
                #expect(image.isConsistent)
            } catch {
                refused += 1
                #expect(Self.dataCodes.contains(error.code), "\(path) cut to \(length): \(error)")
            }
        }
        // Most prefixes lack the coded data; a few may end only in padding the decoder never needs.
        #expect(refused >= data.count * 9 / 10, "\(path): only \(refused) of \(data.count) prefixes refused")
    }

    @Test func emptyAndForeignBytesAreRefused() throws {
        #expect(throws: ImageKernelError.self) { try HEIFCoder().decode(Data(), options: DecodeOptions()) }
        #expect(!HEIFCoder().canDecode(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
        var ftyp = Data([0, 0, 0, 24]) + Data("ftypisom".utf8) + Data(repeating: 0, count: 12)
        #expect(!HEIFCoder().canDecode(ftyp))
        ftyp.replaceSubrange(8..<12, with: Data("avif".utf8))
        #expect(HEIFCoder().canDecode(ftyp))
        do {
            _ = try HEIFCoder().decode(ftyp, options: DecodeOptions())
            Issue.record("a bare ftyp decoded")
        } catch {
            #expect(Self.dataCodes.contains(error.code))
        }
    }
}
