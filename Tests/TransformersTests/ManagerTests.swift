import CoderJPEG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing
import Transformers

/// Serves one file's bytes for `count://` URLs and counts the loads.
private final class CountingLoader: ImageLoader, Sendable {
    let name = "CountingLoader"
    let data: Data
    let loads = Locked(0)

    init(data: Data) { self.data = data }

    func canLoad(_ url: URL) -> Bool { url.scheme == "count" }

    func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext, progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult {
        loads.withLock { $0 += 1 }
        progress(LoadProgress(received: Int64(data.count), expected: Int64(data.count)))
        return LoadResult(data: data, url: request.url)
    }
}

@Suite("Transformers through the manager")
struct ManagerTests {
    private func context(_ spec: String) throws -> ImageContext {
        var context = ImageContext()
        context.transformer = try TransformSpec(parsing: spec)
        return context
    }

    @Test func aTransformedLoadIsCachedUnderTheChainsKeyAndANewSpecNeedsNoDownload() async throws {
        let loader = CountingLoader(data: try TestData.data("exif-orientation/pillow/hopper_orientation_6.jpg"))
        let cache = TieredCache(backing: MemoryCache())
        let manager = ImageManager(configuration: .init(cache: cache, loaders: LoaderRegistry([loader]), coders: CoderRegistry([JPEGCoder()])))
        let url = URL(string: "count://host/hopper.jpg")!

        let first = try await manager.image(for: url, context: try context("orient/resize:fill:64:32"))
        #expect(first.image?.width == 64 && first.image?.height == 32)
        #expect(first.image?.orientation == .up)
        let key = try #require(manager.cacheKey(for: url, context: try context("orient/resize:fill:64:32:lanczos3:centre")))
        #expect(key == CacheKey.transformed(url.absoluteString, transformerKey: "orient/resize:fill:64:32:lanczos3"))
        #expect(first.cacheKey == key)
        #expect(loader.loads.withLock { $0 } == 1)

        // The same chain spelled differently is a cache hit.
        let again = try await manager.image(for: url, context: try context("ORIENT/resize:fill:64:32:lanczos"))
        #expect(again.cacheType != .none)
        #expect(again.image?.pixels == first.image?.pixels)

        // A new chain on the cached original: transformed again, not downloaded again.
        let other = try await manager.image(for: url, context: try context("resize:fit:32:32:bilinear/gray"))
        #expect(other.image?.width == 32 && other.image?.height == 32)
        #expect(loader.loads.withLock { $0 } == 1, "the original came from the cache")
    }
}
