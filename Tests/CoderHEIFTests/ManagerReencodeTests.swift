import CoderHEIF
import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel
import LoaderFile
import ImageKernelTestSupport
import Testing

/// The manager's default re-encode for the disk cache (a transformed result without bytes) picks
/// PNG (alpha) or JPEG (none), never HEIF, even with the HEIF coder registered first.
@Suite("HEIF results stored by the manager")
struct ManagerReencodeTests {
    /// Records the bytes stored under every key; never answers a query.
    final class RecordingCache: ImageCache, Sendable {
        let name = "RecordingCache"
        let stored = Locked<[String: Data]>([:])
        func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? { nil }
        func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
            if let data = entry.data { stored.withLock { $0[key] = data } }
        }
        func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) {}
        func clear(type: ImageCacheType) async throws(ImageKernelError) {}
        func contains(key: String, type: ImageCacheType) async -> ImageCacheType { .none }
    }

    struct Identity: ImageTransformer {
        var key: String { "identity" }
        func transform(_ image: Image) throws(ImageKernelError) -> Image { image }
    }

    @Test(arguments: [("heif/libheif/example.heic", ImageFormat.jpeg), ("heif/libheif/tests-data/with-alpha-512x512.heic", .png)])
    func transformedHEIFIsStoredAsPNGOrJPEG(_ path: String, _ expected: ImageFormat) async throws {
        let cache = RecordingCache()
        let manager = ImageManager(configuration: .init(
            cache: cache, loaders: LoaderRegistry([FileLoader()]), coders: CoderRegistry([HEIFCoder(), PNGCoder(), JPEGCoder()])))
        var context = ImageContext()
        context.transformer = Identity()
        let result = try await manager.image(for: TestData.url(path), context: context)
        #expect(result.image?.sourceFormat == .heic)
        var formats: [ImageFormat] = []
        for _ in 0..<500 {
            formats = cache.stored.withLock { $0.filter { $0.key.contains("identity") }.map { ImageFormat.sniff($0.value) } }
            if !formats.isEmpty { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(formats == [expected])
    }
}
