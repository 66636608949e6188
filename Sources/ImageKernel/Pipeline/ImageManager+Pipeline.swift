import Foundation

/// One caller's way through a load (DESIGN.md rules 1–9): its own checks, then the shared work.
extension ImageManager {
    struct LoadPlan: Sendable {
        let url: URL
        let options: ImageOptions
        let context: ImageContext
        let cache: any ImageCache
        let originalKey: String?
        let key: String?
        let transformer: (any ImageTransformer)?
        let decodeOptions: DecodeOptions

        /// The thumbnail box, nil when none or empty (an empty box means full size).
        var thumbnail: PixelSize? { decodeOptions.thumbnailPixelSize }
        var isVariant: Bool { transformer != nil || thumbnail != nil }
        /// Where results go: the context's type, else memory only with `cacheMemoryOnly`, else all tiers.
        var storeType: ImageCacheType { context.storeCacheType ?? (options.contains(.cacheMemoryOnly) ? .memory : .all) }
        /// Where the final key is looked up: the context's type, else memory only with `queryMemoryOnly`.
        var queryType: ImageCacheType { context.queryCacheType ?? (options.contains(.queryMemoryOnly) ? .memory : .all) }
    }

    /// Options that do not change what a load produces, so callers differing only in them share work.
    static let sharingNeutralOptions: ImageOptions = [.lowPriority, .highPriority, .retryFailed]

    func perform(url: URL?, options: ImageOptions, context: ImageContext, caller: Caller) async throws(ImageKernelError) -> ImageResult {
        configuration.metrics?.requests.increment()
        // Rule 1: a usable URL.
        guard let url, !url.absoluteString.isEmpty else {
            throw ImageKernelError(stage: .request, code: .invalidURL, message: "the URL is nil or empty")
        }
        // Rule 2: URLs that failed for good fail at once.
        if !options.contains(.retryFailed), hasFailures, isFailed(url) {
            throw ImageKernelError(
                stage: .request, code: .blacklisted,
                message: "\(url.absoluteString) failed before; pass retryFailed to try again")
        }
        let plan = makePlan(url: url, options: options, context: context)
        if let hit = try await memoryHit(plan: plan, caller: caller) { return hit }

        // Rule 9: join the work that produces this result, or start it.
        let key = ResultWorkKey(
            key: plan.key ?? "\u{0}uncached:" + url.absoluteString,
            options: options.subtracting(Self.sharingNeutralOptions), context: ContextSignature(plan.context, transformer: plan.transformer))
        let result = try await results.value(for: key, subscriber: caller) { [self] job in
            try await produce(plan: plan, job: job)
        }
        if options.contains(.retryFailed) { removeFailedURL(url) }
        return result
    }

    /// A memory hit is answered in the caller's own task, without shared work: it costs a lookup.
    private func memoryHit(plan: LoadPlan, caller: Caller) async throws(ImageKernelError) -> ImageResult? {
        let options = plan.options
        guard let key = plan.key, plan.queryType.includesMemory,
              !options.contains(.fromLoaderOnly), !options.contains(.refreshCached) else { return nil }
        let hit: CacheQueryResult?
        do {
            hit = try await plan.cache.query(key: key, type: .memory)
        } catch {
            throw ImageKernelError.wrap(error, stage: .cache, plugin: plan.cache.name)
        }
        guard let hit, let image = hit.entry.image else { return nil }
        if caller.isFinished || Task.isCancelled { throw .cancelled() }
        configuration.metrics?.cacheHits.increment()
        return ImageResult(image: image, data: hit.entry.data, cacheType: .memory, url: plan.url, cacheKey: key, validators: hit.entry.validators)
    }

    private func makePlan(url: URL, options: ImageOptions, context: ImageContext) -> LoadPlan {
        var context = context
        if context.thumbnailPixelSize?.isEmpty == true { context.thumbnailPixelSize = nil }  // an empty box is full size
        let originalKey = originalCacheKey(for: url, context: context)
        var decodeOptions = DecodeOptions(
            thumbnailPixelSize: context.thumbnailPixelSize,
            pixelLimit: context.pixelLimit ?? configuration.pixelLimit,
            scaleDownLargeImages: options.contains(.scaleDownLargeImages),
            firstFrameOnly: options.contains(.decodeFirstFrameOnly),
            scale: Image.scale(fromFileName: url.lastPathComponent))
        decodeOptions.colorConverter = configuration.colorConverter
        return LoadPlan(
            url: url, options: options, context: context, cache: context.cache ?? configuration.cache,
            originalKey: originalKey, key: originalKey.map { variantKey($0, context: context) },
            transformer: transformer(for: context), decodeOptions: decodeOptions)
    }
}
