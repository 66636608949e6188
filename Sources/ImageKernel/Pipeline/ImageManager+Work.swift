import Foundation

/// The work one result needs (rules 4–8), run once for all the callers that share it (rule 9).
extension ImageManager {
    typealias ResultJob = SharedWork<ResultWorkKey, ImageResult, ImageLoadEvent>.Job
    typealias ResultJobStart = SharedWork<ResultWorkKey, ImageResult, ImageLoadEvent>.Start
    typealias CachedHit = (result: ImageResult, validators: CacheValidators?)

    func produce(plan: LoadPlan, memory: MemoryLookup, job: ResultJob) async throws(ImageKernelError) -> ImageResult {
        let url = plan.url
        let options = plan.options
        // Rule 4: the cache, unless fromLoaderOnly.
        var cached: CachedHit?
        if !options.contains(.fromLoaderOnly), let key = plan.key {
            cached = try await queryCache(plan: plan, key: key, memory: memory)
            if let hit = cached {
                configuration.metrics?.cacheHits.increment()
                if !options.contains(.refreshCached) { return hit.result }
                job.emit(.cachedImage(hit.result), sticky: true)
            } else if plan.isVariant, let derived = try await deriveFromCachedOriginal(plan: plan) {
                return derived
            }
        }
        try checkCancellation()

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
            return try await loadAndDecode(plan: plan, cached: cached, job: job)
        } catch {
            // Rule 7: only permanent failures are remembered.
            let block = configuration.delegate?.shouldBlockFailedURL(url, error: error) ?? !error.isTransient
            if block, error.code != .cancelled { markFailed(url) }
            configuration.metrics?.failures.increment()
            configuration.logger?.debug("load failed", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            throw error
        }
    }

    /// Queries the cache for the final key, past the memory tier when the claiming caller asked it
    /// already; decodes byte-only hits and, unless results stay out of memory (`storeCacheType`
    /// without memory), keeps the decoded image in memory.
    private func queryCache(plan: LoadPlan, key: String, memory: MemoryLookup) async throws(ImageKernelError) -> CachedHit? {
        let type = plan.queryType
        guard type != .none else { return nil }
        var hit: CacheQueryResult?
        var promote = false
        if case .asked(let memoryHit) = memory {
            hit = memoryHit
            if hit == nil, type.includesDisk {
                hit = try await sharedQuery(plan.cache, key: key, type: .disk)
                // A `.disk` query does not promote into memory as `.all` would: a persistent hit
                // that holds an image is kept in memory here instead.
                promote = plan.storeType.includesMemory
            }
        } else if type == .all, !plan.storeType.includesMemory {
            // One tier at a time, so a tiered cache does not copy a disk hit into memory.
            hit = try await sharedQuery(plan.cache, key: key, type: .memory)
            if hit == nil { hit = try await sharedQuery(plan.cache, key: key, type: .disk) }
        } else {
            hit = try await sharedQuery(plan.cache, key: key, type: type)
        }
        guard let hit else { return nil }
        var image = hit.entry.image
        if image == nil, !plan.options.contains(.avoidDecode) {
            guard let data = hit.entry.data, let decoded = try? decode(data, plan: plan, thumbnail: nil) else {
                configuration.logger?.debug("cached entry is unreadable; treating as a miss", metadata: ["key": "\(key)"])
                return nil
            }
            image = decoded
            if plan.storeType.includesMemory {
                await storeEntry(CacheEntry(image: decoded, validators: hit.entry.validators), key: key, in: plan.cache, type: .memory)
            }
        } else if promote, let image {
            await storeEntry(CacheEntry(image: image, validators: hit.entry.validators), key: key, in: plan.cache, type: .memory)
        }
        let result = ImageResult(
            image: image, data: hit.entry.data, cacheType: hit.source, url: plan.url, cacheKey: key, isFromSharedCache: hit.isShared,
            validators: hit.entry.validators)
        return (result, hit.entry.validators)
    }

    /// One query per cache, key and tiers at a time, whoever asks (rule 9). A memory-only query
    /// is a lookup under a lock and runs at once: sharing it would cost more than it saves.
    func sharedQuery(_ cache: any ImageCache, key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        if type == .memory {
            do {
                return try await cache.query(key: key, type: .memory)
            } catch {
                throw ImageKernelError.wrap(error, stage: .cache, plugin: cache.name)
            }
        }
        let workKey = QueryWorkKey(cache: PartIdentity(cache), key: key, type: type)
        let subscriber = Subscriber<CacheQueryResult?, Never>(priority: .normal, events: nil)
        return try await queries.value(for: workKey, subscriber: subscriber) { _ in
            do {
                return try await cache.query(key: key, type: type)
            } catch {
                throw ImageKernelError.wrap(error, stage: .cache, plugin: cache.name)
            }
        }
    }

    /// Rule 8: a new transform or thumbnail of a cached original needs no download.
    private func deriveFromCachedOriginal(plan: LoadPlan) async throws(ImageKernelError) -> ImageResult? {
        let type = plan.context.originalQueryCacheType ?? .disk
        guard type != .none, let originalKey = plan.originalKey else { return nil }
        let cache = plan.context.originalCache ?? plan.cache
        guard let hit = try await sharedQuery(cache, key: originalKey, type: type) else { return nil }
        let image: Image
        if let data = hit.entry.data, let decoded = try? decode(data, plan: plan, thumbnail: plan.thumbnail, forTransform: true) {
            image = decoded
        } else if let original = hit.entry.image, plan.thumbnail == nil {
            image = original
        } else {
            return nil
        }
        let final = try await transformed(image, plan: plan)
        try checkCancellation()
        let stored = await storeVariant(final, originalData: hit.entry.data, validators: hit.entry.validators, plan: plan)
        return ImageResult(
            image: final, data: stored, cacheType: hit.source, url: plan.url, cacheKey: plan.key, isFromSharedCache: hit.isShared,
            validators: hit.entry.validators)
    }

    private func loadAndDecode(plan: LoadPlan, cached: CachedHit?, job: ResultJob) async throws(ImageKernelError) -> ImageResult {
        let url = plan.url
        let loaded = try await download(plan: plan, cached: cached, job: job)
        try checkCancellation()
        configuration.metrics?.bytesLoaded.increment(by: Int64(loaded.data.count))

        if loaded.notModified, let cached {
            var result = cached.result
            result.wasRevalidated = true
            return result
        }
        // A variant's bytes do not exist until it is decoded, transformed and stored: handing out
        // the loaded ones would give a transformed or thumbnail result the original's bytes.
        if plan.options.contains(.avoidDecode), !plan.isVariant {
            if let key = plan.key, plan.storeType.includesDisk {
                await storeEntry(CacheEntry(data: loaded.data, validators: loaded.validators), key: key, in: plan.cache, type: .disk)
            }
            return ImageResult(image: nil, data: loaded.data, cacheType: .none, url: url, cacheKey: plan.key, validators: loaded.validators)
        }
        var image = try decode(loaded.data, plan: plan, thumbnail: plan.thumbnail, forTransform: true)
        // A vector drawn at the transform's box is not the original: that is decoded again if kept.
        let decodedOriginal = vectorRenderBox(for: loaded.data, plan: plan, thumbnail: plan.thumbnail) == nil
        var hookChanged = false
        if let delegate = configuration.delegate, let changed = delegate.transformDownloadedImage(image, url: url) {
            image = changed
            hookChanged = true
        }
        let final = try await transformed(image, plan: plan)
        try checkCancellation()
        await storeOriginal(decoded: plan.transformer != nil && plan.thumbnail == nil && decodedOriginal ? image : nil, loaded: loaded, plan: plan)
        let data: Data?
        if plan.isVariant || hookChanged {
            data = await storeVariant(final, originalData: hookChanged ? nil : loaded.data, validators: loaded.validators, plan: plan)
        } else {
            data = await storeOriginalResult(final, loaded: loaded, plan: plan)
        }
        return ImageResult(image: final, data: data, cacheType: .none, url: url, cacheKey: plan.key, validators: loaded.validators)
    }

    /// The box a vector source is drawn at for the plan's transformer (its
    /// ``ImageTransformer/vectorRenderBox``), or nil: a raster source, a thumbnail, no such box.
    func vectorRenderBox(for data: Data, plan: LoadPlan, thumbnail: PixelSize?) -> ShrinkOnLoad? {
        guard thumbnail == nil, plan.decodeOptions.shrinkOnLoad == nil, let box = plan.transformer?.vectorRenderBox,
            ImageFormat.sniff(data).isVector
        else { return nil }
        return box
    }

    /// Decodes `data` for the plan; `forTransform` draws a vector source at the transformer's box.
    func decode(_ data: Data, plan: LoadPlan, thumbnail: PixelSize?, forTransform: Bool = false) throws(ImageKernelError) -> Image {
        var options = plan.decodeOptions
        options.thumbnailPixelSize = thumbnail
        if forTransform, let box = vectorRenderBox(for: data, plan: plan, thumbnail: thumbnail) { options.shrinkOnLoad = box }
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
        configuration.metrics?.decodes.increment()
        let image = try coder.decode(data, options: options)
        guard image.isConsistent else {
            throw ImageKernelError(
                stage: .decode, plugin: coder.name, code: .internalError,
                message: "the coder returned a \(image.width)x\(image.height) \(image.pixelFormat) image whose buffer (\(image.pixels.count) bytes, \(image.bytesPerRow) per row) does not hold it")
        }
        return image
    }

    /// Runs the transformer off the caller's executor.
    private func transformed(_ image: Image, plan: LoadPlan) async throws(ImageKernelError) -> Image {
        guard let transformer = plan.transformer else { return image }
        let animated = plan.options.contains(.transformAnimatedImage)
        let outcome = await Task.detached { () -> Result<Image, ImageKernelError> in
            do throws(ImageKernelError) {
                if animated, !image.frames.isEmpty { return .success(try transformer.transformAnimation(image)) }
                return .success(try transformer.transform(image))
            } catch {
                return .failure(error)
            }
        }.value
        return try outcome.get()
    }

    func checkCancellation() throws(ImageKernelError) {
        if Task.isCancelled { throw .cancelled() }
    }
}
