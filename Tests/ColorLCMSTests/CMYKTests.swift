import CLCMS
import CoderJPEG
import ColorLCMS
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// CMYK JPEGs with a CMYK profile: through lcms when a converter is given, the naive formula
/// (and no profile) otherwise.
@Suite("CMYK JPEGs through their profile")
struct CMYKTests {
    static func cmykProfile() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: Reference.ghostscriptCMYKPath)))
    }

    /// `jpeg` with `profile` inserted after SOI as `ICC_PROFILE` APP2 chunks, given in reverse
    /// order (readers must order them by sequence number).
    static func embedding(_ profile: [UInt8], in jpeg: Data) -> Data {
        let chunkSize = 65_519
        let chunks = stride(from: 0, to: profile.count, by: chunkSize).map { Array(profile[$0..<min($0 + chunkSize, profile.count)]) }
        var markers = Data()
        for (index, chunk) in chunks.enumerated().reversed() {
            let length = 2 + 14 + chunk.count
            markers += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            markers += Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(chunks.count)]
            markers += chunk
        }
        var out = Data(jpeg.prefix(2))
        out += markers
        out += jpeg.dropFirst(2)
        return out
    }

    /// Records the CMYK samples it is handed, then converts through lcms2.
    final class CapturingConverter: ColorConverter, @unchecked Sendable {
        let inner = LCMSColorConverter()
        var name: String { inner.name }
        var captured: (samples: [UInt8], inverted: Bool, width: Int, rows: Int)?
        func needsConversion(_ image: Image, for conversion: ColorConversion) -> Bool { inner.needsConversion(image, for: conversion) }
        func convert(_ image: Image, _ conversion: ColorConversion) throws(ImageKernelError) -> Image { try inner.convert(image, conversion) }
        func convertCMYK(
            profile: [UInt8], inverted: Bool, source: UnsafeRawPointer, sourceStride: Int,
            destination: UnsafeMutableRawPointer, destinationStride: Int, width: Int, rows: Int, _ conversion: ColorConversion
        ) throws(ImageKernelError) {
            var samples: [UInt8] = []
            for row in 0..<rows { samples += UnsafeRawBufferPointer(start: source + row * sourceStride, count: width * 4) }
            captured = (samples, inverted, width, rows)
            try inner.convertCMYK(
                profile: profile, inverted: inverted, source: source, sourceStride: sourceStride,
                destination: destination, destinationStride: destinationStride, width: width, rows: rows, conversion)
        }
    }

    @Test("a CMYK JPEG with a profile converts as lcms converts its samples", arguments: [
        "jpeg/pillow/pil_sample_cmyk.jpg", "jpeg/mozilla/jpg-cmyk-1.jpg",
    ])
    func cmykThroughProfile(path: String) throws {
        let profile = try Self.cmykProfile()
        let file = Self.embedding(profile, in: try TestData.data(path))
        let coder = JPEGCoder()
        let naive = try coder.decode(file, options: DecodeOptions())
        #expect(naive.iccProfile == nil, "a CMYK profile must not ride on naive RGB pixels")
        let capturing = CapturingConverter()
        var options = DecodeOptions()
        options.colorConverter = capturing
        let managed = try coder.decode(file, options: options)
        #expect(managed.pixelFormat == .rgb8 && managed.iccProfile == nil && managed.width == naive.width)
        let captured = try #require(capturing.captured)
        let reference = try Reference.convert(
            captured.samples, width: captured.width, rows: captured.rows, from: .icc(profile),
            captured.inverted ? CLCMS_CMYK8_INVERTED : CLCMS_CMYK8, 4, to: .sRGB(), CLCMS_RGB8, 3)
        #expect(managed.pixels == reference ? true : false, "lcms2 through the converter differs from lcms2 alone")
        let fromNaive = difference(managed.pixels, naive.pixels)
        print("\(path) (inverted \(captured.inverted)): lcms vs naive formula mean \(fromNaive.mean) max \(fromNaive.max)")
        #expect(fromNaive.mean > 3)
    }

    @Test("a CMYK thumbnail through the profile is the full conversion scaled down")
    func cmykThumbnail() throws {
        let file = Self.embedding(try Self.cmykProfile(), in: try TestData.data("jpeg/pillow/pil_sample_cmyk.jpg"))
        var options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40))
        options.colorConverter = LCMSColorConverter()
        let thumbnail = try JPEGCoder().decode(file, options: options)
        #expect(thumbnail.width <= 40 && thumbnail.height <= 40 && thumbnail.pixelFormat == .rgb8 && thumbnail.iccProfile == nil)
    }

    @Test("a CMYK file without a profile keeps the naive formula with a converter at hand")
    func cmykWithoutProfile() throws {
        let file = try TestData.data("jpeg/pillow/pil_sample_cmyk.jpg")
        var options = DecodeOptions()
        options.colorConverter = LCMSColorConverter()
        let managed = try JPEGCoder().decode(file, options: options)
        let naive = try JPEGCoder().decode(file, options: DecodeOptions())
        #expect(managed.pixels == naive.pixels ? true : false)
    }
}
