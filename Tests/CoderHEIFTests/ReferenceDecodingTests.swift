import CoderHEIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("HEIF decode against libheif's own reference")
struct ReferenceDecodingTests {
    @Test func tableHasEveryRow() {
        #expect(LibheifReference.decodable.count == 56)
        #expect(LibheifReference.errors.count == 30)
    }

    @Test("every HEIF row decodes to its size and sha256_rgba", arguments: LibheifReference.decodable)
    func decodesExactly(_ row: LibheifRow) throws {
        let image = try HEIFCoder().decode(TestData.data(row.path), options: DecodeOptions())
        #expect(image.width == row.width && image.height == row.height)
        #expect(image.pixelFormat.hasAlpha == row.hasAlpha)
        #expect(image.pixelFormat.bitsPerComponent == 8)
        #expect(image.orientation == .up)
        #expect(rgbaHash(image) == row.sha256RGBA)
    }

    @Test("every ERROR row gives a typed error", arguments: LibheifReference.errors)
    func refusesWithTypedError(_ row: LibheifRow) throws {
        let data = try TestData.data(row.path)
        do {
            _ = try HEIFCoder().decode(data, options: DecodeOptions())
            Issue.record("\(row.path) decoded")
        } catch {
            #expect(error.stage == .decode && error.plugin == "CoderHEIF")
            #expect([.corruptData, .unsupported, .truncated].contains(error.code), "\(row.path): \(error)")
        }
    }
}
