import AnimationReference
import CoderGIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Every GIF row of REFERENCE-ANIM.tsv (Pillow 13), decoded by giflib 5.2 through `GIFCoder`.
///
/// Hashes are compared with RGB zeroed where alpha is 0 (the `alpha0-rgb-nonzero` caveat):
/// Pillow keeps the palette colour under alpha 0, `GIFCoder` writes (0,0,0,0) as browsers do.
/// Pillow's zeroed hashes come from `Reference/make_zeroed_reference.py`. Since our output has
/// no RGB under alpha 0, this is as strict as the raw hash for every file whose Pillow output
/// has none either. Durations are compared after the browser delay rule (see `GIFCoder`).
@Suite("GIF against REFERENCE-ANIM.tsv")
struct ReferenceTests {
    static let rows = AnimReference.rows(withExtension: "gif").filter { !$0.isError }

    /// Pillow's hashes with RGB zeroed under alpha 0: path → (frame 0, all frames, each frame).
    static let zeroed: [String: (frame0: String, frames: String, each: [String])] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Reference/pillow-zeroed.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var table: [String: (String, String, [String])] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t").map(String.init)
            if fields.count == 4 { table[fields[0]] = (fields[1], fields[2], fields[3].split(separator: ",").map(String.init)) }
        }
        return table
    }()

    /// Files where Pillow's conventions are not browsers'; each is checked as far as they agree.
    enum Exception {
        /// Pillow grows the canvas for frames past the logical screen (`canvas-grows`);
        /// browsers and libvips clip them. Frame 0 is compared; later frames keep the size.
        case canvasGrows
        /// Pillow paints dispose-to-background with the background index of the disposed
        /// frame's colour table when that frame has no transparent index; browsers clear to
        /// transparent. Frames 0 and 1 (before any disposal shows) are compared.
        case disposeToBackgroundColor
        /// Two GIF files concatenated (no trailer after the first): Pillow skips unknown bytes
        /// until a block starts and finds a second frame in the second file's header; browsers
        /// end the file at the first unknown block, and so do we: one frame.
        case concatenatedFiles
        /// The LZW minimum code size is 11; the spec allows up to 8 and giflib refuses it, so
        /// the file is a typed `corruptData` error. Pillow decodes it.
        case lzwCodeSizeOverEight
    }

    static let exceptions: [String: Exception] = [
        "gif/pillow/test_extents.gif": .canvasGrows,
        "gif/pillow/test_extents_transparency.gif": .concatenatedFiles,
        "gif/pillow/dispose_bgnd.gif": .disposeToBackgroundColor,
        "gif/pillow/dispose_bgnd_rgba.gif": .disposeToBackgroundColor,
        "gif/pillow/issue_2811.gif": .lzwCodeSizeOverEight,
    ]

    @Test func tablesCoverEveryGIF() {
        #expect(Self.rows.count == 43, "36 Pillow and 7 generated GIFs")
        #expect(Self.rows.allSatisfy { Self.zeroed[$0.path] != nil })
    }

    @Test("decodes as the reference says, or as browsers where they differ", arguments: rows)
    func matchesReference(_ row: AnimReference) throws {
        let data = try TestData.data(row.path)
        let exception = Self.exceptions[row.path]
        if exception == .lzwCodeSizeOverEight {
            let error = #expect(throws: ImageKernelError.self) { try GIFCoder().decode(data, options: DecodeOptions()) }
            #expect(error?.code == .corruptData && error?.plugin == "CoderGIF")
            return
        }
        let image = try GIFCoder().decode(data, options: DecodeOptions())
        let reference = try #require(Self.zeroed[row.path])
        #expect(image.sourceFormat == .gif && image.pixelFormat == .rgba8)
        #expect(image.width == row.width && image.height == row.height)
        #expect(image.allFrames.allSatisfy { $0.image.width == row.width && $0.image.height == row.height })
        #expect(image.loopCount == row.loop)
        #expect(sha256Hex(rgba8(image, zeroingTransparentRGB: true)) == reference.frame0, "frame 0")
        if exception == .concatenatedFiles {
            #expect(image.frameCount == 1)
            return
        }
        #expect(image.frameCount == row.frameCount)
        let played = row.durationsMs.map { row.frameCount > 1 && $0 <= 10 ? 100 : $0 }
        #expect(image.allFrames.map { Int(($0.duration * 1000).rounded()) } == played)
        switch exception {
        case .disposeToBackgroundColor:
            let each = image.allFrames.prefix(2).map { sha256Hex(rgba8($0.image, zeroingTransparentRGB: true)) }
            #expect(each == Array(reference.each.prefix(2)))
        case .canvasGrows:
            break
        default:
            #expect(allFramesHash(image, zeroingTransparentRGB: true) == reference.frames, "all frames")
        }
    }

    @Test func rgbUnderAlphaZeroIsAlwaysZero() throws {
        for row in Self.rows where Self.exceptions[row.path] == nil {
            let image = try GIFCoder().decode(try TestData.data(row.path), options: DecodeOptions())
            for frame in image.allFrames {
                #expect(rgba8(frame.image) == rgba8(frame.image, zeroingTransparentRGB: true), "\(row.path)")
            }
        }
    }
}
