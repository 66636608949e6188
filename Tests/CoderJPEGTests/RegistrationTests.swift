import CoderJPEG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("Registration and sniffing")
struct RegistrationTests {
    @Test("canDecode looks at magic bytes only")
    func sniffsMagicBytes() throws {
        let coder = JPEGCoder()
        #expect(coder.canDecode(try TestData.data("jpeg/pillow/hopper.jpg")))
        #expect(coder.canDecode(Data([0xFF, 0xD8, 0xFF, 0xE0])))
        #expect(!coder.canDecode(Data([0xFF, 0xD8])))
        #expect(!coder.canDecode(try TestData.data("pngsuite/basn2c08.png")))
        #expect(!coder.canDecode(Data()))
    }

    @Test("a registry with JPEGCoder decodes and encodes JPEG through it")
    func worksThroughTheRegistry() throws {
        let registry = CoderRegistry()
        let token = registry.register(JPEGCoder())
        let data = try TestData.data("jpeg/pillow/hopper.jpg")
        #expect(registry.coder(forDecoding: data)?.name == "CoderJPEG")
        #expect(registry.coder(forEncoding: .jpeg)?.name == "CoderJPEG")
        let image = try registry.decode(data)
        #expect(image.width == 128 && image.sourceFormat == .jpeg)
        let encoded = try registry.encode(image, as: .jpeg)
        #expect(ImageFormat.sniff(encoded) == .jpeg)
        #expect(registry.unregister(token))
        #expect(registry.coder(forDecoding: data) == nil)
    }

    @Test("the decoded image records the requested scale factor")
    func recordsScale() throws {
        let image = try JPEGCoder().decode(TestData.data("jpeg/pillow/hopper.jpg"), options: DecodeOptions(scale: 2))
        #expect(image.scale == 2)
    }

    @Test("the coder is usable from many tasks at once")
    func concurrentDecodes() async throws {
        let coder = JPEGCoder()
        let data = try TestData.data("jpeg/derived/testorig-progressive.jpg")
        let expected = try coder.decode(data, options: DecodeOptions())
        try await withThrowingTaskGroup(of: Image.self) { group in
            for index in 0..<16 {
                group.addTask {
                    index.isMultiple(of: 2)
                        ? try coder.decode(data, options: DecodeOptions())
                        : try coder.decode(try coder.encode(expected, as: .jpeg, options: EncodeOptions(quality: 1)), options: DecodeOptions())
                }
            }
            for try await image in group { #expect(image.width == expected.width) }
        }
    }
}
