import CoderPNG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("Broken and truncated PNGs give a typed error or a correct image", .timeLimit(.minutes(1)))
struct BrokenInputTests {
    let coder = PNGCoder()

    /// Files of every colour type, bit depth and interlacing, for the truncation sweeps.
    static let sweepFiles = [
        "pngsuite/basn0g01.png", "pngsuite/basi0g02.png", "pngsuite/basn0g16.png", "pngsuite/basn2c08.png",
        "pngsuite/basi2c16.png", "pngsuite/basn3p04.png", "pngsuite/basi3p08.png", "pngsuite/basn4a16.png",
        "pngsuite/basi4a08.png", "pngsuite/basn6a08.png", "pngsuite/basi6a16.png", "pngsuite/tbrn2c08.png",
        "pngsuite/exif2c08.png", "pngsuite/ccwn3p08.png",
    ]

    static let allowedCodes: [ImageKernelError.Code] = [.corruptData, .truncated, .pixelLimitExceeded, .unsupported]

    @Test func theBrokenCorpusIsPresent() {
        #expect(ReferenceTable.brokenPNGs.count >= 20)
    }

    @Test("a broken file is refused with a typed error or decodes to the reference", arguments: ReferenceTable.brokenPNGs)
    func brokenFileIsRefusedOrCorrect(_ path: String) throws {
        let data = try TestData.data(path)
        switch outcome({ () throws(ImageKernelError) in try coder.decode(data, options: DecodeOptions()) }) {
        case .success(let image):
            // Where Pillow decoded the file too, the pixels must agree.
            if let expected = ReferenceTable.rows[path]?.expectedRGBA8 {
                #expect(rgba8SHA256(image) == expected)
            }
        case .failure(let error):
            #expect(error.plugin == "CoderPNG")
            #expect(error.stage == .decode)
            #expect(Self.allowedCodes.contains(error.code), "\(error)")
        }
    }

    @Test("a broken file fed progressively is refused or complete", arguments: ReferenceTable.brokenPNGs)
    func brokenFileFedProgressively(_ path: String) throws {
        let data = try TestData.data(path)
        let decoder = coder.makeProgressiveDecoder(options: DecodeOptions())
        let fed = outcome { () throws(ImageKernelError) -> Image? in
            var last: Image?
            for start in stride(from: 0, to: data.count, by: 97) {
                if let image = try decoder.append(data.subdata(in: start..<min(data.count, start + 97))) { last = image }
            }
            return last
        }
        switch fed {
        case .success(let last):
            // libpng's push reader stops at the last row and never checks the zlib stream's
            // Adler-32 (badadler.png), so it may accept what the one-shot decode refuses; when
            // both finish they agree.
            if let last, !last.isPreview,
               case .success(let whole) = outcome({ () throws(ImageKernelError) in try coder.decode(data, options: DecodeOptions()) }) {
                #expect(last == whole)
            }
        case .failure(let error):
            #expect(error.plugin == "CoderPNG")
            #expect(Self.allowedCodes.contains(error.code), "\(error)")
            // After a failure the decoder keeps failing.
            #expect(throws: ImageKernelError.self) { try decoder.append(Data([0])) }
        }
    }

    @Test("every prefix of a valid file is refused as truncated or decodes completely", arguments: sweepFiles)
    func everyPrefixIsTruncatedOrComplete(_ path: String) throws {
        let data = try TestData.data(path)
        let whole = try coder.decode(data, options: DecodeOptions())
        var completePrefixes = 0
        for length in 0..<data.count {
            switch outcome({ () throws(ImageKernelError) in try coder.decode(data.prefix(length), options: DecodeOptions()) }) {
            case .success(let image):
                #expect(image == whole, "prefix \(length)")
                completePrefixes += 1
            case .failure(let error):
                #expect(error.code == .truncated, "prefix \(length): \(error)")
            }
        }
        // Only a prefix that lacks nothing but the end chunks (IEND at least) decodes.
        #expect(completePrefixes >= 1 && completePrefixes <= 64)
    }

    @Test("split anywhere, a progressive decode still ends with the whole image", arguments: sweepFiles)
    func everySplitPointCompletesProgressively(_ path: String) throws {
        let data = try TestData.data(path)
        let whole = try coder.decode(data, options: DecodeOptions())
        for split in 0...data.count {
            let decoder = coder.makeProgressiveDecoder(options: DecodeOptions())
            let preview = try decoder.append(data.prefix(split))
            if split < data.count { #expect(preview?.isPreview ?? true, "split \(split)") }
            let final = split < data.count ? try decoder.append(data.suffix(from: split)) : preview
            #expect(final == whole, "split \(split)")
        }
    }
}
