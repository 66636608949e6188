import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel
import ImageProxyCore
import Testing
import ImageKernelTestSupport

/// The header read that decides whether a render runs on the request's thread (small) or on a
/// render thread: it must agree with the decoders, and say "unknown" rather than guess.
@Suite("Source dimensions from headers")
struct SourceDimensionsTests {
    @Test func everyReferenceJPEGAndPNGAgreesWithItsDecode() throws {
        let paths = try TestData.referencePaths { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }
        var checked = 0
        for path in paths {
            let data = try TestData.data(path)
            let format = ImageFormat.sniff(data)
            let coder: any ImageCoder = format == .png ? PNGCoder() : JPEGCoder()
            guard let image = try? coder.decode(data, options: DecodeOptions(firstFrameOnly: true)) else { continue }
            // Decoders report stored (not EXIF-rotated) sizes; width x height is the same either way.
            // A broken file libjpeg reads leniently (junk before the first marker) may be unknown
            // (rendered as a large one), never a wrong size.
            let count = SourceDimensions.pixelCount(of: data, format: format)
            if path.hasPrefix("broken/") && count == nil { continue }
            #expect(count == image.width * image.height, "\(path)")
            checked += 1
        }
        #expect(checked > 100)
    }

    @Test func progressiveJPEGsAreRead() throws {
        let paths = try TestData.referencePaths { $0.hasSuffix(".jpg") }
        let progressive = try paths.filter { path in
            let bytes = [UInt8](try TestData.data(path))
            return zip(bytes, bytes.dropFirst()).contains { $0 == 0xFF && $1 == 0xC2 }
        }
        #expect(!progressive.isEmpty)
        for path in progressive {
            #expect(SourceDimensions.pixelCount(of: try TestData.data(path), format: .jpeg) != nil, "\(path)")
        }
    }

    @Test func unreadableHeadersAreUnknown() throws {
        let jpeg = try TestData.data("exif-orientation/recurser/Landscape_0.jpg")
        let png = try TestData.data("pngsuite/basn2c08.png")
        #expect(SourceDimensions.pixelCount(of: jpeg.prefix(20), format: .jpeg) == nil)
        #expect(SourceDimensions.pixelCount(of: png.prefix(20), format: .png) == nil)
        #expect(SourceDimensions.pixelCount(of: Data(), format: .jpeg) == nil)
        // Not a marker where one must be; a zero height (defined later by DNL); another format.
        #expect(SourceDimensions.pixelCount(of: Data([0xFF, 0xD8, 0x00, 0x00] + [UInt8](repeating: 0, count: 20)), format: .jpeg) == nil)
        let zeroHeight: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x00, 0x01, 0x00, 0x03] + [UInt8](repeating: 0, count: 12)
        #expect(SourceDimensions.pixelCount(of: Data(zeroHeight), format: .jpeg) == nil)
        #expect(SourceDimensions.pixelCount(of: try TestData.data("gif/pillow/chi.gif"), format: .gif) == nil)
        // A segment length that points past the data ends the scan without reading out of bounds.
        let runaway: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 30)
        #expect(SourceDimensions.pixelCount(of: Data(runaway), format: .jpeg) == nil)
    }
}
