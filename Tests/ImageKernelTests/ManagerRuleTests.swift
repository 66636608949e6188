import Foundation
import ImageKernel
import Testing

@Suite("Manager rules 1–8")
struct ManagerRuleTests {
    @Test func rule1_nilEmptyAndUnparsableURLsFailAtOnce() async {
        let loader = MemoryLoader()
        let manager = makeManager(loader: loader)
        for input in [nil, URL(string: "")] as [URL?] {
            await #expect(throws: ImageKernelError.self) { try await manager.image(for: input) }
        }
        do {
            _ = try await manager.image(for: "")
            Issue.record("empty string loaded")
        } catch { #expect(error.code == .invalidURL) }
        do {
            _ = try await manager.image(for: "http://[::1")
            Issue.record("unparsable string loaded")
        } catch { #expect(error.code == .invalidURL) }
        #expect(loader.requestCount == 0)
    }

    @Test func rule2_permanentFailureIsBlacklistedUntilRetryFailed() async throws {
        let loader = MemoryLoader()
        loader.serve("bad", data: Data("not an image".utf8))
        let manager = makeManager(loader: loader)
        let url = memURL("bad")
        await #expect(throws: ImageKernelError.self) { try await manager.image(for: url) }
        #expect(manager.isFailed(url))
        do {
            _ = try await manager.image(for: url)
        } catch { #expect(error.code == .blacklisted) }
        #expect(loader.requestCount == 1, "a blacklisted URL is not loaded again")

        loader.serve("bad", data: RawCoder.data(width: 2, height: 2))
        let result = try await manager.image(for: url, options: .retryFailed)
        #expect(result.image?.width == 2)
        #expect(!manager.isFailed(url), "a success with retryFailed clears the failure")
        #expect(loader.requestCount == 2)
    }

    @Test func rule3_cacheKeyComesFromFilterThenThumbnailThenTransformer() async throws {
        let manager = ImageManager(configuration: .init(cacheKeyFilter: ClosureCacheKeyFilter { "k:" + $0.lastPathComponent }))
        let url = URL(string: "https://example.com/a/photo.jpg?x=1")!
        #expect(manager.cacheKey(for: url) == "k:photo.jpg")
        var context = ImageContext()
        context.cacheKeyFilter = AbsoluteURLCacheKeyFilter()
        #expect(manager.cacheKey(for: url, context: context) == "https://example.com/a/photo.jpg?x=1")
        context.transformer = ClosureTransformer(key: "blur(2)") { $0 }
        #expect(manager.cacheKey(for: url, context: context) == "https://example.com/a/photo-blur(2).jpg?x=1")
        context.thumbnailPixelSize = PixelSize(width: 64, height: 32)
        #expect(manager.cacheKey(for: url, context: context) == "https://example.com/a/photo-Thumbnail(64x32)-blur(2).jpg?x=1")
        context.cacheKeyFilter = ClosureCacheKeyFilter { _ in nil }
        #expect(manager.cacheKey(for: url, context: context) == nil)
    }

    @Test func rule4_cacheHitIsDeliveredWithoutLoading() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 3, height: 3))
        let manager = makeManager(loader: loader)
        let first = try await manager.image(for: memURL("a"))
        #expect(first.cacheType == ImageCacheType.none)
        let second = try await manager.image(for: memURL("a"))
        #expect(second.cacheType == .memory)
        #expect(second.image == first.image)
        #expect(loader.requestCount == 1)
    }

    @Test func rule4_refreshCachedDeliversCachedImageThenReloadsWithValidators() async throws {
        let loader = MemoryLoader()
        loader.serve("r", data: RawCoder.data(width: 3, height: 3), etag: "\"v1\"")
        let manager = makeManager(loader: loader)
        let loaded = try await manager.image(for: memURL("r"))
        #expect(loaded.validators?.etag == "\"v1\"", "the result carries the response's validators")
        #expect(try await manager.image(for: memURL("r")).validators?.etag == "\"v1\"", "and a cached result the ones kept with it")

        // Unchanged at the source: the cached image again, revalidated, no second image.
        let events = EventLog<ImageLoadEvent>()
        let same = try await manager.image(for: memURL("r"), options: .refreshCached) { events.append($0) }
        #expect(same.wasRevalidated)
        #expect(loader.requests.withLock { $0.last?.cachedValidators?.etag } == "\"v1\"")
        #expect(events.all.contains { if case .cachedImage = $0 { true } else { false } })

        // Changed at the source: the new image.
        loader.serve("r", data: RawCoder.data(width: 5, height: 5), etag: "\"v2\"")
        let fresh = try await manager.image(for: memURL("r"), options: .refreshCached)
        #expect(!fresh.wasRevalidated)
        #expect(fresh.image?.width == 5)
        #expect(fresh.validators?.etag == "\"v2\"")
        #expect(loader.requestCount == 3)
        #expect(try await manager.image(for: memURL("r")).image?.width == 5, "the refreshed image replaced the cached one")
    }

    @Test func rule5_delegateCanRefuseDownload() async {
        struct Refuse: ImageManagerDelegate { func shouldDownload(_ url: URL) -> Bool { false } }
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 1, height: 1))
        let manager = makeManager(loader: loader, delegate: Refuse())
        do {
            _ = try await manager.image(for: memURL("a"))
            Issue.record("loaded despite the delegate")
        } catch { #expect(error.code == .downloadRefused) }
        #expect(loader.requestCount == 0)
        #expect(!manager.isFailed(memURL("a")))
    }

    @Test func rule5_loadsDecodesTransformsAndStoresOriginalBytes() async throws {
        let loader = MemoryLoader()
        let bytes = RawCoder.data(width: 4, height: 2)
        loader.serve("a", data: bytes)
        let backing = MemoryCache()
        let cache = TieredCache(backing: backing)
        let manager = makeManager(cache: cache, loader: loader)
        let result = try await manager.image(for: memURL("a"))
        #expect(result.image?.width == 4)
        #expect(result.data == bytes)
        #expect(backing.entry(forKey: memURL("a").absoluteString)?.data == bytes, "untransformed: original bytes stored")
    }

    @Test func rule5_noLoaderAndNoCoderAreTypedErrors() async {
        let manager = makeManager()
        do { _ = try await manager.image(for: URL(string: "gopher://x/y")!) } catch { #expect(error.code == .noLoader) }
        let loader = MemoryLoader()
        loader.serve("junk", data: Data(repeating: 7, count: 100))
        let manager2 = makeManager(loader: loader)
        do { _ = try await manager2.image(for: memURL("junk")) } catch { #expect(error.code == .noCoder) }
    }

    @Test func rule6_operationCompletesExactlyOnceAndCancelGivesCancelled() async throws {
        let loader = MemoryLoader()
        loader.serve("slow", data: RawCoder.data(width: 2, height: 2), delay: .seconds(30))
        loader.serve("fast", data: RawCoder.data(width: 2, height: 2))
        let manager = makeManager(loader: loader)
        let outcomes = EventLog<Result<ImageResult, ImageKernelError>>()
        let slow = manager.loadImage(with: memURL("slow")) { outcomes.append($0) }
        #expect(await eventually { loader.requestCount == 1 })
        #expect(manager.isRunning)
        slow.cancel()
        slow.cancel()
        #expect(outcomes.count == 1)
        if case .failure(let error) = outcomes.all.first { #expect(error.code == .cancelled) } else { Issue.record("not cancelled") }
        #expect(await eventually { manager.runningCount == 0 })

        let fastOutcomes = EventLog<Result<ImageResult, ImageKernelError>>()
        let fast = manager.loadImage(with: memURL("fast")) { fastOutcomes.append($0) }
        #expect(await eventually { fastOutcomes.count == 1 })
        fast.cancel()
        #expect(fastOutcomes.count == 1, "cancel after completion delivers nothing")
        #expect(fast.isCancelled == false)
    }

    @Test func rule6_cancelAllCancelsEveryRunningOperation() async {
        let loader = MemoryLoader()
        loader.serve("slow", data: RawCoder.data(width: 2, height: 2), delay: .seconds(30))
        let manager = makeManager(loader: loader)
        let outcomes = EventLog<Result<ImageResult, ImageKernelError>>()
        for _ in 0..<5 { manager.loadImage(with: memURL("slow"), options: .fromLoaderOnly) { outcomes.append($0) } }
        #expect(manager.runningCount == 5)
        manager.cancelAll()
        #expect(outcomes.count == 5)
        #expect(outcomes.all.allSatisfy { if case .failure(let e) = $0 { e.code == .cancelled } else { false } })
        #expect(await eventually { !manager.isRunning })
    }

    @Test func rule7_transientFailuresAreNeverBlacklisted() async {
        let loader = MemoryLoader()
        let manager = makeManager(loader: loader)
        let transient: [ImageKernelError] = [
            .init(stage: .load, code: .timeout, message: "t"), .init(stage: .load, code: .dnsFailure, message: "d"),
            .init(stage: .load, code: .cannotConnect, message: "c"), .init(stage: .load, code: .connectionLost, message: "l"),
            .init(stage: .load, code: .httpStatus, message: "s", httpStatus: 408), .init(stage: .load, code: .httpStatus, message: "s", httpStatus: 429),
            .init(stage: .load, code: .httpStatus, message: "s", httpStatus: 503),
        ]
        for (i, error) in transient.enumerated() {
            loader.fail("t\(i)", error)
            await #expect(throws: ImageKernelError.self) { try await manager.image(for: memURL("t\(i)")) }
            #expect(!manager.isFailed(memURL("t\(i)")), "\(error.code) must not be blacklisted")
        }
        let permanent: [ImageKernelError] = [
            .init(stage: .load, code: .httpStatus, message: "s", httpStatus: 404), .init(stage: .load, code: .notFound, message: "n"),
        ]
        for (i, error) in permanent.enumerated() {
            loader.fail("p\(i)", error)
            await #expect(throws: ImageKernelError.self) { try await manager.image(for: memURL("p\(i)")) }
            #expect(manager.isFailed(memURL("p\(i)")))
        }
    }

    @Test func rule7_delegateDecidesBlacklisting() async {
        struct Never: ImageManagerDelegate { func shouldBlockFailedURL(_ url: URL, error: ImageKernelError) -> Bool { false } }
        let loader = MemoryLoader()
        loader.fail("p", .init(stage: .load, code: .httpStatus, message: "gone", httpStatus: 410))
        let manager = makeManager(loader: loader, delegate: Never())
        await #expect(throws: ImageKernelError.self) { try await manager.image(for: memURL("p")) }
        #expect(!manager.isFailed(memURL("p")))
    }

    @Test func rule8_transformedResultIsCachedApartAndOriginalIsKept() async throws {
        let loader = MemoryLoader()
        let bytes = RawCoder.data(width: 8, height: 8)
        loader.serve("t", data: bytes)
        let backing = MemoryCache()
        let cache = TieredCache(backing: backing)
        let manager = makeManager(cache: cache, loader: loader)
        let url = memURL("t")
        var flip = ImageContext()
        flip.transformer = ClosureTransformer(key: "half") { RawCoder.shrink($0, toFit: PixelSize(width: 4, height: 4)) }
        let transformed = try await manager.image(for: url, context: flip)
        #expect(transformed.image?.width == 4)
        let transformedKey = manager.cacheKey(for: url, context: flip)!
        #expect(transformedKey == "mem://t/image-half.raw")
        #expect(backing.entry(forKey: transformedKey)?.data != nil, "transformed bytes re-encoded for disk")
        #expect(backing.entry(forKey: url.absoluteString)?.data == bytes, "original bytes kept under the original key")
        #expect(cache.memory.entry(forKey: url.absoluteString) == nil, "the full image is not put in memory")

        // A new transform of the cached original needs no download.
        var quarter = ImageContext()
        quarter.transformer = ClosureTransformer(key: "quarter") { RawCoder.shrink($0, toFit: PixelSize(width: 2, height: 2)) }
        let second = try await manager.image(for: url, context: quarter)
        #expect(second.image?.width == 2)
        #expect(second.cacheType == .disk)
        #expect(loader.requestCount == 1)
    }

    @Test func rule8_thumbnailHasItsOwnKeyAndNeverOverwritesFullSize() async throws {
        let loader = MemoryLoader()
        loader.serve("big", data: RawCoder.data(width: 40, height: 20), delay: .milliseconds(50))
        let manager = makeManager(loader: loader)
        let url = memURL("big")
        let full = try await manager.image(for: url)
        #expect(full.image?.width == 40)
        // Concurrent callers asking for different thumbnail sizes each get their own.
        async let small = manager.image(for: url, options: .fromLoaderOnly, context: thumbnail(10, 10))
        async let medium = manager.image(for: url, options: .fromLoaderOnly, context: thumbnail(20, 20))
        let (s, m) = try await (small, medium)
        #expect(s.image?.width == 10 && s.image?.height == 5)
        #expect(m.image?.width == 20 && m.image?.height == 10)
        #expect(try await manager.image(for: url).image?.width == 40, "full-size entry intact")
        #expect(try await manager.image(for: url, context: thumbnail(10, 10)).cacheType == .memory)
    }

    private func thumbnail(_ w: Int, _ h: Int) -> ImageContext {
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(width: w, height: h)
        return context
    }
}
