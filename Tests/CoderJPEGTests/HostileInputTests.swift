import CoderJPEG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("Hostile and unsupported input gets a typed error, never a crash or hang")
struct HostileInputTests {
    let coder = JPEGCoder()

    static let unsupportedFiles = [
        "jpeg/libjpeg-turbo/monkey12.jpg", "jpeg/libjpeg-turbo/testorig12.jpg",
    ] + (1...7).map { "jpeg/jpeg-decoder-lossless/jpeg_lossless_sel\($0).jpg" }

    @Test("lossless (SOF3) and 12-bit JPEGs throw unsupported", arguments: unsupportedFiles)
    func losslessAndTwelveBitAreUnsupported(_ path: String) throws {
        let data = try TestData.data(path)
        #expect(coder.canDecode(data))
        let error = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions()) }
        #expect(error?.code == .unsupported, "\(error.map(String.init(describing:)) ?? "no error")")
        #expect(error?.stage == .decode && error?.plugin == "CoderJPEG")
    }

    static let brokenFiles: [String] = {
        let root = TestData.url("broken/jpeg")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }
            .filter { ["jpg", "jpeg"].contains($0.pathExtension.lowercased()) } ?? []
        return files.map { "broken/jpeg/" + $0.path.dropFirst(root.path.count + 1) }.sorted()
    }()

    @Test("every broken JPEG gives a typed error or an image", .timeLimit(.minutes(1)), arguments: brokenFiles)
    func brokenFileGivesTypedErrorOrImage(_ path: String) throws {
        let data = try TestData.data(path)
        do {
            let image = try coder.decode(data, options: DecodeOptions())
            #expect(image.pixels.count >= image.bytesPerRow * image.height)
            // Where Pillow decodes the file too, the image must be exactly Pillow's.
            if let row = Reference.rows.first(where: { $0.path == path }), !row.isError {
                #expect(image.width == row.width && image.height == row.height)
                #expect(rgbaHash(image) == row.sha256RGBA)
            }
        } catch {
            #expect([.corruptData, .truncated, .unsupported, .pixelLimitExceeded].contains(error.code), "\(path): \(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("the broken corpus is present")
    func brokenCorpusIsPresent() {
        #expect(Self.brokenFiles.count >= 14)
    }

    @Test("a file cut short in its data is truncated, not a padded image")
    func truncatedFileIsTruncated() throws {
        let error = #expect(throws: ImageKernelError.self) {
            try coder.decode(TestData.data("broken/jpeg/pillow/truncated_jpeg.jpg"), options: DecodeOptions())
        }
        #expect(error?.code == .truncated)
    }

    @Test("bytes that are not a JPEG are corrupt data; no bytes are truncated")
    func nonJPEGBytes() {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 64))
        #expect(!coder.canDecode(png))
        #expect((try? coder.decode(png, options: DecodeOptions())) == nil)
        let error = #expect(throws: ImageKernelError.self) { try coder.decode(Data(), options: DecodeOptions()) }
        #expect(error?.code == .truncated)
    }

    static let sweepFiles = [
        "jpeg/libjpeg-turbo/testorig.jpg", "jpeg/libjpeg-turbo/testimgari.jpg",
        "jpeg/derived/testorig-progressive.jpg", "jpeg/derived/testorig-restart1-optimized.jpg",
        "jpeg/derived/testorig-grayscale.jpg", "jpeg/mozilla/jpg-cmyk-1.jpg", "jpeg/mozilla/jpg-progressive.jpg",
        "jpeg/mozilla/jpg-srgb-icc.jpg", "jpeg/mozilla/jpg-size-33x33.jpg", "jpeg/jpeg-decoder/restarts.jpg",
        "jpeg/jpeg-decoder/non-interleaved-mcu.jpg", "jpeg/jpeg-decoder/extraneous-data.jpg",
        "exif-orientation/pillow/hopper_orientation_6.jpg",
    ]

    /// Every prefix of a valid file must throw a typed error or give exactly the full image:
    /// libjpeg's padding of missing data must never leak out as a wrong picture.
    @Test("every prefix of a valid file gives a typed error or the whole image", .timeLimit(.minutes(1)), arguments: sweepFiles)
    func truncationSweep(_ path: String) throws {
        let data = try TestData.data(path)
        let full = try coder.decode(data, options: DecodeOptions())
        var accepted = 0
        for length in 0..<data.count {
            do {
                let image = try coder.decode(data.prefix(length), options: DecodeOptions())
                #expect(image == full, "\(path): prefix of \(length) of \(data.count) bytes decoded to a different image")
                accepted += 1
            } catch {
                if ![.truncated, .corruptData].contains(error.code) {
                    Issue.record("\(path): prefix \(length): unexpected \(error)")
                }
            }
        }
        #expect(accepted <= 16, "\(path): \(accepted) prefixes accepted; only bytes after the image data may be missing")
    }
}
