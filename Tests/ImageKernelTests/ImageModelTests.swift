import Foundation
import ImageKernel
import Testing

@Suite("Image model")
struct ImageModelTests {
    @Test func everyPixelFormatConvertsToRGBA8() throws {
        let gray = try Image(width: 2, height: 1, pixelFormat: .gray8, pixels: [10, 200])
        #expect(gray.rgba8Pixels() == [10, 10, 10, 255, 200, 200, 200, 255])
        let ga = try Image(width: 1, height: 1, pixelFormat: .grayAlpha8, pixels: [7, 9])
        #expect(ga.rgba8Pixels() == [7, 7, 7, 9])
        let rgb = try Image(width: 1, height: 1, pixelFormat: .rgb8, pixels: [1, 2, 3])
        #expect(rgb.rgba8Pixels() == [1, 2, 3, 255])
        let wide: [UInt16] = [0x1234, 0xABCD, 0xFF00, 0x00FF]
        let rgba16 = try Image(width: 1, height: 1, pixelFormat: .rgba16, pixels: wide.withUnsafeBytes { Array($0) })
        #expect(rgba16.rgba8Pixels() == [0x12, 0xAB, 0xFF, 0x00], "16-bit keeps the high byte")
        let gray16 = try Image(width: 1, height: 1, pixelFormat: .gray16, pixels: [UInt16(0x8001)].withUnsafeBytes { Array($0) })
        #expect(gray16.rgba8Pixels() == [0x80, 0x80, 0x80, 255])
        let premultiplied = try Image(width: 1, height: 1, pixelFormat: .rgba8Premultiplied, pixels: [64, 0, 128, 128])
        #expect(premultiplied.rgba8Pixels() == [128, 0, 255, 128])
    }

    @Test func paddedRowsAreDroppedInConversion() throws {
        let image = try Image(width: 1, height: 2, pixelFormat: .rgb8, bytesPerRow: 4, pixels: [1, 2, 3, 99, 4, 5, 6, 99])
        #expect(image.rgba8Pixels() == [1, 2, 3, 255, 4, 5, 6, 255])
        #expect(image.cost == 8)
    }

    @Test func tooSmallBuffersAreRejected() {
        #expect(throws: ImageKernelError.self) { try Image(width: 2, height: 2, pixelFormat: .rgba8, pixels: [0, 0, 0]) }
        #expect(throws: ImageKernelError.self) { try Image(width: 0, height: 2, pixelFormat: .rgba8, pixels: []) }
    }

    @Test func scaleComesFromTheFileName() {
        #expect(Image.scale(fromFileName: "icon@2x.png") == 2)
        #expect(Image.scale(fromFileName: "/a/b/icon@3x.jpg") == 3)
        #expect(Image.scale(fromFileName: "icon.png") == 1)
    }

    @Test func errorDescriptionReadsWellAndTransienceFollowsTheCode() {
        let error = ImageKernelError(stage: .load, plugin: "LoaderHTTP", code: .httpStatus, message: "not found", httpStatus: 404)
        #expect(error.description == "[load/LoaderHTTP] http_status 404: not found")
        #expect(!error.isTransient)
        #expect(ImageKernelError(stage: .load, code: .httpStatus, message: "", httpStatus: 502).isTransient)
        #expect(ImageKernelError(stage: .load, code: .timeout, message: "").isTransient)
        #expect(!ImageKernelError(stage: .decode, code: .corruptData, message: "").isTransient)
        #expect(ImageKernelError.wrap(CancellationError(), stage: .load).code == .cancelled)
    }

    @Test func variantKeysGoBeforeTheExtension() {
        #expect(CacheKey.transformed("https://a.com/x/y.png?q=1.2", transformerKey: "t") == "https://a.com/x/y-t.png?q=1.2")
        #expect(CacheKey.transformed("https://a.com/x/y", transformerKey: "t") == "https://a.com/x/y-t")
        #expect(CacheKey.transformed("/local/photo.jpg", transformerKey: "t") == "/local/photo-t.jpg")
        #expect(CacheKey.transformed("plain", transformerKey: "t") == "plain-t")
        #expect(CacheKey.thumbnail("k.png", size: PixelSize(width: 4, height: 5)) == "k-Thumbnail(4x5).png")
    }

    @Test func pixelSizeParses() {
        #expect(PixelSize(parsing: "256x128") == PixelSize(width: 256, height: 128))
        #expect(PixelSize(parsing: "64") == PixelSize(width: 64, height: 64))
        #expect(PixelSize(parsing: "0x5") == nil)
        #expect(PixelSize(parsing: "axb") == nil)
    }
}

@Suite("Plugin boundary")
struct PluginBoundaryTests {
    /// A coder that builds a valid image, then breaks it through the mutable public fields.
    struct LyingCoder: ImageCoder {
        let name = "LyingCoder"
        func canDecode(_ data: Data) -> Bool { true }
        func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
            var image = RawCoder.makeImage(width: 2, height: 2)
            image.width = 5000
            return image
        }
    }

    @Test func anInconsistentDecodedImageIsATypedErrorNotACrash() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: Data([1, 2, 3]))
        let manager = ImageManager(configuration: .init(loaders: LoaderRegistry([loader]), coders: CoderRegistry([LyingCoder()])))
        do {
            _ = try await manager.image(for: memURL("a"))
            Issue.record("an inconsistent image was delivered")
        } catch {
            #expect(error.code == .internalError)
            #expect(error.plugin == "LyingCoder")
        }
        var broken = RawCoder.makeImage(width: 2, height: 2)
        broken.height = 100
        #expect(!broken.isConsistent)
        #expect(broken.rgba8Pixels().isEmpty)
    }
}
