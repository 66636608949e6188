import CLCMS
import CoderHEIF
import CoderJPEG
import CoderPNG
import CoderWebP
import ColorLCMS
import Foundation
import ImageKernel
import ImageKernelTestSupport
import LoaderFile
import Testing
import Transformers

/// Colour management through the manager: converted before the transform, cached under its own
/// key, and the colour description carried through coders where nothing converts it.
@Suite("Colour through the pipeline and the coders")
struct PipelineTests {
    static func directory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("colorlcms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func manager(conversion: ColorConversion?, transformer: (any ImageTransformer)?) -> ImageManager {
        ImageManager(configuration: .init(
            loaders: LoaderRegistry([FileLoader()]), coders: CoderRegistry([PNGCoder(), JPEGCoder(), WebPCoder(), HEIFCoder()]),
            transformer: transformer, colorConverter: LCMSColorConverter(), colorConversion: conversion))
    }

    @Test("a tagged PNG resized through the manager matches the untagged original's render")
    func managerConvertsBeforeTheTransform() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try ConversionTests.photo()
        let tagged = try ConversionTests.tagged(photo, try Reference.swappedRedGreen())
        let taggedURL = dir.appendingPathComponent("tagged.png"), plainURL = dir.appendingPathComponent("plain.png")
        try PNGCoder().encode(tagged, as: .png, options: EncodeOptions()).write(to: taggedURL)
        try PNGCoder().encode(photo, as: .png, options: EncodeOptions()).write(to: plainURL)

        let spec = try TransformSpec(parsing: "resize:fill:300:200")
        let manager = Self.manager(conversion: .sRGB, transformer: spec)
        let managed = try #require(try await manager.image(for: taggedURL).image)
        let plain = try #require(try await manager.image(for: plainURL).image)
        #expect(managed.iccProfile == nil && managed.width == 300 && managed.height == 200)
        let d = difference(managed.rgba8Pixels(), plain.rgba8Pixels())
        print("manager, resize:fill:300:200, swapped-RG PNG vs untagged original: mean \(d.mean) max \(d.max)")
        #expect(d.mean <= 1.5)
        #expect(manager.cacheKey(for: taggedURL)?.contains("color-srgb") == true)

        // With the converter but no conversion asked for, the profile is carried, pixels untouched.
        let carrying = Self.manager(conversion: nil, transformer: nil)
        let carried = try #require(try await carrying.image(for: taggedURL).image)
        #expect(carried.iccProfile == tagged.iccProfile && (carried.pixels == tagged.pixels ? true : false))
    }

    @Test("thumbnails, transforms and every coder that holds a profile keep it", arguments: ["png", "jpeg", "webp", "avif"])
    func descriptionSurvivesCoders(format: String) throws {
        let photo = try ConversionTests.photo()
        let profile = try Reference.adobeRGB().bytes
        var tagged = photo
        tagged.iccProfile = profile
        let registry = CoderRegistry([PNGCoder(), JPEGCoder(), WebPCoder(), HEIFCoder()])
        let data = try registry.encode(tagged, as: ImageFormat(rawValue: format), options: EncodeOptions(quality: 0.8))
        let decoded = try registry.decode(data)
        #expect(decoded.iccProfile == profile)
        let thumbnail = try registry.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(thumbnail.iccProfile == profile)
        let transformed = try TransformSpec(parsing: "orient/resize:fill:120:80/crop:100:60/flip:h/rotate:90/blur:1/grayscale").transform(decoded)
        #expect(transformed.iccProfile == profile)
    }

    @Test("CICP from an AVIF's nclx box is read, written and survives transforms")
    func cicpThroughAVIF() throws {
        var photo = try ConversionTests.photo()
        photo.cicp = .displayP3
        let data = try HEIFCoder().encode(photo, as: .avif, options: EncodeOptions(quality: 0.8))
        let decoded = try HEIFCoder().decode(data, options: DecodeOptions())
        #expect(decoded.cicp?.colourPrimaries == 12 && decoded.cicp?.transferCharacteristics == 13, "read back \(String(describing: decoded.cicp))")
        let resized = try TransformSpec(parsing: "resize:fit:100:100").transform(decoded)
        #expect(resized.cicp == decoded.cicp)
        let thumbnail = try HEIFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64)))
        #expect(thumbnail.cicp == decoded.cicp)
    }

    @Test("JPEG's shrink-on-load and planar (Y'CbCr) paths keep the profile")
    func jpegFastPathsKeepTheProfile() throws {
        let photo = try ConversionTests.photo()
        let profile = try Reference.proPhoto().bytes
        var tagged = photo
        tagged.iccProfile = profile
        let data = try JPEGCoder().encode(tagged, as: .jpeg, options: EncodeOptions(quality: 0.9))
        let resize = ResizeTransformer(.fill, width: 120, height: 80)
        let shrunk = try JPEGCoder().decode(data, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad))
        #expect(shrunk.iccProfile == profile)
        let planes = try #require(try JPEGCoder().decodeYCbCr(data, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad)))
        #expect(planes.iccProfile == profile)
        let resized = try resize.transform(planes, subsampling: .s420)
        #expect(resized.iccProfile == profile)
        let encoded = try JPEGCoder().encode(resized, options: EncodeOptions(quality: 0.9))
        #expect(try JPEGCoder().decode(encoded, options: DecodeOptions()).iccProfile == profile)
        #expect(JPEGCoder.embeddedICCProfile(encoded) == profile)
        #expect(JPEGCoder.embeddedICCProfile(try JPEGCoder().encode(photo, as: .jpeg, options: EncodeOptions())) == nil)
    }

    @Test("PNG reads and writes cICP, and reads a linear gAMA as code points")
    func pngCodePoints() throws {
        var photo = try ConversionTests.photo()
        photo.cicp = .displayP3
        let data = try PNGCoder().encode(photo, as: .png, options: EncodeOptions())
        #expect(try PNGCoder().decode(data, options: DecodeOptions()).cicp == .displayP3)
        let thumbnail = try PNGCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50)))
        #expect(thumbnail.cicp == .displayP3)
        // An ICC profile, when there is one, is the description written (cICP would override it).
        photo.iccProfile = try Reference.adobeRGB().bytes
        let both = try PNGCoder().decode(try PNGCoder().encode(photo, as: .png, options: EncodeOptions()), options: DecodeOptions())
        #expect(both.iccProfile == photo.iccProfile && both.cicp == nil)
        // libpng's test PNGs: gAMA 1.0 (linear) and gAMA 1/2.2 (sRGB by the web's reading).
        let linear = try PNGCoder().decode(try TestData.data("png-extra/libpng-testpngs/rgb-8-linear.png"), options: DecodeOptions())
        #expect(linear.cicp?.transferCharacteristics == 8)
    }
}
