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
        var queryType: ImageCacheType { ImageManager.queryType(options: options, context: context) }
    }

    /// Where a load's final key is looked up: the context's type, else memory only with `queryMemoryOnly`.
    static func queryType(options: ImageOptions, context: ImageContext) -> ImageCacheType {
        context.queryCacheType ?? (options.contains(.queryMemoryOnly) ? .memory : .all)
    }

    /// Options that do not change what a load produces, so callers differing only in them share work.
    static let sharingNeutralOptions: ImageOptions = [.lowPriority, .highPriority, .retryFailed]

    /// - Parameter lookedInMemory: Whether the caller already asked ``finishedInMemory(url:options:context:)``.
    func perform(url: URL?, options: ImageOptions, context: ImageContext, caller: Caller, lookedInMemory: Bool = false) async throws(ImageKernelError) -> ImageResult {
        if !lookedInMemory, let hit = finishedInMemory(url: url, options: options, context: context) { return hit }
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

        // Rule 9: join the work that produces this result, or claim it. Only the caller that
        // claims it asks the memory tier (one query for all callers, however many join while it
        // asks); a hit answers every one of them at once, without a task.
        let key = ResultWorkKey(
            key: plan.key ?? "\u{0}uncached:" + url.absoluteString,
            options: options.subtracting(Self.sharingNeutralOptions), context: ContextSignature(plan.context, transformer: plan.transformer))
        let result = try await results.value(for: key, subscriber: caller) { [self] () async -> ResultJobStart in
            let memory = await lookInMemory(plan: plan)
            if case .hit(let hit) = memory { return .value(hit) }
            return .work { [self] job in try await produce(plan: plan, memory: memory, job: job) }
        }
        if options.contains(.retryFailed) { removeFailedURL(url) }
        return result
    }

    /// What the caller that claimed a result learnt from the memory tier, for the work to go on
    /// from (so the memory tier of the final key is asked once per result, not once per caller).
    enum MemoryLookup: Sendable {
        /// Not asked (the load skips the cache, refreshes it, or never looks in memory), or the
        /// query failed (cancelled, or a broken cache): the work queries as it would alone.
        case notAsked
        /// Asked and missed, or found bytes without an image (the work decodes them).
        case asked(CacheQueryResult?)
        /// An image: the result.
        case hit(ImageResult)
    }

    /// A result already finished in the cache's own memory tier (``ImageCache/memoryTier``): one
    /// synchronous lookup of the final key, before the caller is registered or any work claimed.
    /// Nil sends the load the whole way: a URL rules 1 and 2 refuse, a load that does not look in
    /// memory (or asks `retryFailed`), a cancelled task, a cache without a memory tier (a cache
    /// that must see every query), or no image there; then the claim decides who asks the cache,
    /// once for all callers.
    func finishedInMemory(url: URL?, options: ImageOptions, context: ImageContext) -> ImageResult? {
        guard let url, !options.contains(.fromLoaderOnly), !options.contains(.refreshCached), !options.contains(.retryFailed),
              Self.queryType(options: options, context: context).includesMemory,
              let memory = (context.cache ?? configuration.cache).memoryTier, !Task.isCancelled, !url.absoluteString.isEmpty,
              !(hasFailures && isFailed(url))
        else { return nil }
        var context = context
        if context.thumbnailPixelSize?.isEmpty == true { context.thumbnailPixelSize = nil }  // an empty box is full size
        guard let base = originalCacheKey(for: url, context: context) else { return nil }
        let key = variantKey(base, context: context)
        guard let entry = memory.entry(forKey: key), let image = entry.image else { return nil }
        configuration.metrics?.requests.increment()
        configuration.metrics?.cacheHits.increment()
        return ImageResult(image: image, data: entry.data, cacheType: .memory, url: url, cacheKey: key, validators: entry.validators)
    }

    /// The memory query of the final key, made in the claiming caller's task: a hit costs a lookup.
    private func lookInMemory(plan: LoadPlan) async -> MemoryLookup {
        let options = plan.options
        guard let key = plan.key, plan.queryType.includesMemory,
              !options.contains(.fromLoaderOnly), !options.contains(.refreshCached) else { return .notAsked }
        let hit: CacheQueryResult?
        do {
            hit = try await plan.cache.query(key: key, type: .memory)
        } catch {
            return .notAsked  // this caller's cancellation must not become the other callers' error
        }
        guard let hit, let image = hit.entry.image else { return .asked(hit) }
        configuration.metrics?.cacheHits.increment()
        return .hit(ImageResult(image: image, data: hit.entry.data, cacheType: .memory, url: plan.url, cacheKey: key, validators: hit.entry.validators))
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
            scale: Image.scale(fromFileName: url.lastPathComponent),
            scaleDownSourcePixelLimit: context.scaleDownSourcePixelLimit ?? configuration.scaleDownSourcePixelLimit)
        decodeOptions.colorConverter = configuration.colorConverter
        return LoadPlan(
            url: url, options: options, context: context, cache: context.cache ?? configuration.cache,
            originalKey: originalKey, key: originalKey.map { variantKey($0, context: context) },
            transformer: transformer(for: context), decodeOptions: decodeOptions)
    }
}
