import Foundation

/// The steps of one load (DESIGN.md rules 1–8), shared by the async and the operation form.
extension ImageManager {
    struct LoadPlan {
        let url: URL
        let options: ImageOptions
        let context: ImageContext
        let cache: any ImageCache
        let originalKey: String?
        let key: String?
        let transformer: (any ImageTransformer)?
        let decodeOptions: DecodeOptions

        var isVariant: Bool { transformer != nil || context.thumbnailPixelSize != nil }
        /// Where results go: the context's type, else memory only with `cacheMemoryOnly`, else all tiers.
        var storeType: ImageCacheType { context.storeCacheType ?? (options.contains(.cacheMemoryOnly) ? .memory : .all) }
    }

    func perform(
        url: URL?, options: ImageOptions, context: ImageContext, emit: @escaping @Sendable (ImageLoadEvent) -> Void
    ) async throws -> ImageResult {
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
        try Task.checkCancellation()

        // Rule 4: the cache, unless fromLoaderOnly.
        var cached: (result: ImageResult, validators: CacheValidators?)?
        if !options.contains(.fromLoaderOnly), let key = plan.key {
            cached = try await queryCache(plan: plan, key: key)
            if let hit = cached {
                configuration.metrics?.cacheHits.increment()
                if !options.contains(.refreshCached) { return hit.result }
                emit(.cachedImage(hit.result))
            } else if plan.isVariant, let derived = try await deriveFromCachedOriginal(plan: plan) {
                return derived
            }
        }
        try Task.checkCancellation()

        // Rule 5: load, decode, transform, store.
        if options.contains(.fromCacheOnly) {
            if let cached { return cached.result }
            throw ImageKernelError(stage: .cache, code: .notInCache, message: "\(url.absoluteString) is not cached and fromCacheOnly was given")
        }
        if let delegate = configuration.delegate, !delegate.shouldDownload(url) {
            if let cached { return cached.result }
            throw ImageKernelError(stage: .load, code: .downloadRefused, message: "the delegate refused to load \(url.absoluteString)")
        }
        do {
            let result = try await loadAndDecode(plan: plan, cached: cached, emit: emit)
            if options.contains(.retryFailed) { removeFailedURL(url) }
            return result
        } catch {
            let failure = ImageKernelError.wrap(error, stage: .load)
            // Rule 7: only permanent failures are remembered.
            let block = configuration.delegate?.shouldBlockFailedURL(url, error: failure) ?? !failure.isTransient
            if block, failure.code != .cancelled { markFailed(url) }
            configuration.metrics?.failures.increment()
            configuration.logger?.debug("load failed", metadata: ["url": "\(url.absoluteString)", "error": "\(failure)"])
            throw failure
        }
    }

    private func makePlan(url: URL, options: ImageOptions, context: ImageContext) -> LoadPlan {
        let originalKey = originalCacheKey(for: url, context: context)
        let decodeOptions = DecodeOptions(
            thumbnailPixelSize: context.thumbnailPixelSize,
            pixelLimit: context.pixelLimit ?? configuration.pixelLimit,
            scaleDownLargeImages: options.contains(.scaleDownLargeImages),
            firstFrameOnly: options.contains(.decodeFirstFrameOnly))
        return LoadPlan(
            url: url, options: options, context: context, cache: context.cache ?? configuration.cache,
            originalKey: originalKey, key: originalKey.map { variantKey($0, context: context) },
            transformer: context.transformer ?? configuration.transformer, decodeOptions: decodeOptions)
    }

    /// Queries the cache for the final key; decodes byte-only hits and promotes them to memory.
    private func queryCache(plan: LoadPlan, key: String) async throws -> (result: ImageResult, validators: CacheValidators?)? {
        let type = plan.context.queryCacheType ?? (plan.options.contains(.queryMemoryOnly) ? .memory : .all)
        guard type != .none, let hit = try await plan.cache.query(key: key, type: type) else { return nil }
        var image = hit.entry.image
        if image == nil, !plan.options.contains(.avoidDecode) {
            guard let data = hit.entry.data, let decoded = try? decode(data, plan: plan, thumbnail: nil) else {
                configuration.logger?.debug("cached entry is unreadable; treating as a miss", metadata: ["key": "\(key)"])
                return nil
            }
            image = decoded
            try? await plan.cache.store(CacheEntry(image: decoded, validators: hit.entry.validators), forKey: key, type: .memory)
        }
        let result = ImageResult(image: image, data: hit.entry.data, cacheType: hit.source, url: plan.url, cacheKey: key)
        return (result, hit.entry.validators)
    }

    /// Rule 8: a new transform or thumbnail of a cached original needs no download.
    private func deriveFromCachedOriginal(plan: LoadPlan) async throws -> ImageResult? {
        let type = plan.context.originalQueryCacheType ?? .disk
        guard type != .none, let originalKey = plan.originalKey else { return nil }
        let cache = plan.context.originalCache ?? plan.cache
        guard let hit = try await cache.query(key: originalKey, type: type) else { return nil }
        let image: Image
        if let data = hit.entry.data, let decoded = try? decode(data, plan: plan, thumbnail: plan.context.thumbnailPixelSize) {
            image = decoded
        } else if let original = hit.entry.image, plan.context.thumbnailPixelSize == nil {
            image = original
        } else {
            return nil
        }
        let final = try await transformed(image, plan: plan)
        try Task.checkCancellation()
        await store(final, originalData: hit.entry.data, validators: hit.entry.validators, plan: plan, storeOriginal: false)
        return ImageResult(image: final, data: nil, cacheType: hit.source, url: plan.url, cacheKey: plan.key)
    }

    private func loadAndDecode(
        plan: LoadPlan, cached: (result: ImageResult, validators: CacheValidators?)?,
        emit: @escaping @Sendable (ImageLoadEvent) -> Void
    ) async throws -> ImageResult {
        let url = plan.url
        guard let loader = plan.context.loader ?? configuration.loaders.loader(for: url) else {
            throw ImageKernelError(stage: .load, code: .noLoader, message: "no registered loader handles \(url.absoluteString)")
        }
        let loaderOptions = LoaderOptions(plan.options, hasCachedImage: cached != nil)
        let request = ImageRequest(
            url: url, headers: plan.context.requestHeaders ?? [:],
            cachedValidators: plan.options.contains(.refreshCached) ? cached?.validators : nil)
        let progressive = loaderOptions.contains(.progressiveLoad)
            ? ProgressivePreviewer(coders: plan.context.coder.map { [$0] } ?? configuration.coders.coders, options: plan.decodeOptions)
            : nil
        let loaded = try await loader.load(request, options: loaderOptions, context: plan.context) { progress in
            emit(.progress(received: progress.received, expected: progress.expected))
            if let progressive, let chunk = progress.chunk, let preview = progressive.append(chunk) {
                emit(.preview(preview))
            }
        }
        try Task.checkCancellation()
        configuration.metrics?.bytesLoaded.increment(by: Int64(loaded.data.count))

        if loaded.notModified, let cached {
            var result = cached.result
            result.wasRevalidated = true
            return result
        }
        if plan.options.contains(.avoidDecode) {
            if plan.key != nil, !plan.isVariant {
                await storeEntry(CacheEntry(data: loaded.data, validators: loaded.validators), key: plan.key, plan: plan, memoryAllowed: false)
            }
            return ImageResult(image: nil, data: loaded.data, cacheType: .none, url: url, cacheKey: plan.key)
        }
        var image = try decode(loaded.data, plan: plan, thumbnail: plan.context.thumbnailPixelSize)
        var hookChanged = false
        if let delegate = configuration.delegate, let changed = delegate.transformDownloadedImage(image, url: url) {
            image = changed
            hookChanged = true
        }
        let final = try await transformed(image, plan: plan)
        try Task.checkCancellation()
        await store(final, originalData: hookChanged ? nil : loaded.data, validators: loaded.validators, plan: plan, storeOriginal: true)
        return ImageResult(image: final, data: loaded.data, cacheType: .none, url: url, cacheKey: plan.key)
    }

    func decode(_ data: Data, plan: LoadPlan, thumbnail: PixelSize?) throws -> Image {
        var options = plan.decodeOptions
        options.thumbnailPixelSize = thumbnail
        options.scale = Image.scale(fromFileName: plan.url.lastPathComponent)
        let coder: (any ImageCoder)?
        if let forced = plan.context.coder {
            coder = forced
        } else {
            coder = configuration.coders.coder(forDecoding: data)
        }
        guard let coder else {
            throw ImageKernelError(
                stage: .decode, code: .noCoder,
                message: "no registered coder decodes \(ImageFormat.sniff(data)) data (\(data.count) bytes) from \(plan.url.absoluteString)")
        }
        let image = try coder.decode(data, options: options)
        guard image.isConsistent else {
            throw ImageKernelError(
                stage: .decode, plugin: coder.name, code: .internalError,
                message: "the coder returned a \(image.width)x\(image.height) \(image.pixelFormat) image whose buffer (\(image.pixels.count) bytes, \(image.bytesPerRow) per row) does not hold it")
        }
        return image
    }

    /// Runs the transformer off the caller's executor.
    private func transformed(_ image: Image, plan: LoadPlan) async throws -> Image {
        guard let transformer = plan.transformer else { return image }
        let animated = plan.options.contains(.transformAnimatedImage)
        return try await Task.detached {
            var output = try transformer.transform(image)
            if animated, !image.frames.isEmpty {
                output.frames = try image.frames.map { frame throws(ImageKernelError) in
                    ImageFrame(image: try transformer.transform(frame.image), duration: frame.duration)
                }
            }
            return output
        }.value
    }
}
