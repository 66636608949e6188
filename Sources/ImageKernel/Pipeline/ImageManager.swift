import Foundation
import Logging

/// Turns a URL into an image: cache query, load, decode, transform, store — SDWebImageManager's
/// contract (DESIGN.md rules 1–9).
///
/// Concurrent loads that would produce the same result share one piece of work (rule 9): one
/// cache query, one load, one decode, one transform, one store. Loads of the same URL with
/// different variants (thumbnail sizes, transformers) share the download and the disk query of
/// the original, and decode once per variant. Each caller keeps its own events, completion and
/// cancellation; the shared work stops when its last caller leaves.
///
/// Transient load failures are retried by the ``RetryPolicy`` of the context or of the
/// configuration (none by default): once for all the callers of a shared download, never sooner
/// than the source's ``ImageKernelError/retryAfter``, and not at all once the last caller left.
///
/// Use ``image(for:options:context:events:)-(URL?,_,_,_)`` from async code, or
/// ``loadImage(with:options:context:events:completion:)`` for an operation with callbacks.
/// Every part is injected; nothing is global.
public final class ImageManager: Sendable {
    /// The parts and defaults of a manager.
    public struct Configuration: Sendable {
        /// The cache queried before loading and written after.
        public var cache: any ImageCache
        public var loaders: LoaderRegistry
        public var coders: CoderRegistry
        public var cacheKeyFilter: any CacheKeyFilter
        /// Applied to every load that has no transformer in its context.
        public var transformer: (any ImageTransformer)?
        public var delegate: (any ImageManagerDelegate)?
        /// Default pixel limit for decodes (see ``DecodeOptions/pixelLimit``).
        public var pixelLimit: Int
        /// Default ceiling on the source pixels a scale-down reads (see
        /// ``DecodeOptions/scaleDownSourcePixelLimit``); nil means 4 × the pixel limit in force.
        public var scaleDownSourcePixelLimit: Int?
        /// Encode options used when re-encoding transformed images for the cache.
        public var encodeOptions: EncodeOptions
        /// Log through swift-log; nil (the default) logs nothing and costs nothing.
        public var logger: Logger?
        /// Count through swift-metrics; nil (the default) counts nothing and costs nothing.
        public var metrics: ImageMetrics?
        /// How loads retry transient failures unless their context says otherwise; default
        /// ``RetryPolicy/none``.
        public var retryPolicy: RetryPolicy
        /// The colour-management plugin (`ColorLCMS`'s `LCMSColorConverter`, say). With one, CMYK
        /// sources with a profile become RGB through it while decoding, and loads whose context
        /// (or ``colorConversion``) asks for colour-managed pixels get them. Default nil: images
        /// keep their colour description, which loses nothing.
        public var colorConverter: (any ColorConverter)?
        /// Deliver every load's pixels in this colour space (through ``colorConverter``) unless its
        /// context says otherwise; default nil (pixels as decoded, with their description).
        public var colorConversion: ColorConversion?

        public init(
            cache: any ImageCache = MemoryCache(), loaders: LoaderRegistry = LoaderRegistry(),
            coders: CoderRegistry = CoderRegistry(), cacheKeyFilter: any CacheKeyFilter = AbsoluteURLCacheKeyFilter(),
            transformer: (any ImageTransformer)? = nil, delegate: (any ImageManagerDelegate)? = nil,
            pixelLimit: Int = DecodeOptions.defaultPixelLimit, encodeOptions: EncodeOptions = EncodeOptions(),
            logger: Logger? = nil, metrics: ImageMetrics? = nil, retryPolicy: RetryPolicy = .none,
            scaleDownSourcePixelLimit: Int? = nil,
            colorConverter: (any ColorConverter)? = nil, colorConversion: ColorConversion? = nil
        ) {
            self.retryPolicy = retryPolicy
            self.colorConverter = colorConverter
            self.colorConversion = colorConversion
            self.cache = cache
            self.loaders = loaders
            self.coders = coders
            self.cacheKeyFilter = cacheKeyFilter
            self.transformer = transformer
            self.delegate = delegate
            self.pixelLimit = pixelLimit
            self.scaleDownSourcePixelLimit = scaleDownSourcePixelLimit
            self.encodeOptions = encodeOptions
            self.logger = logger
            self.metrics = metrics
        }
    }

    public let configuration: Configuration
    private let failed = Locked<Set<URL>>([])
    private let running = Locked<RunningLoads>(RunningLoads())
    /// Shared work, one job per final result, per download and per cache query (rule 9).
    let results = SharedWork<ResultWorkKey, ImageResult, ImageLoadEvent>()
    let downloads = SharedWork<DownloadWorkKey, LoadResult, DownloadEvent>()
    let queries = SharedWork<QueryWorkKey, CacheQueryResult?, Never>()

    /// Every load in progress, async and operation-based alike, so `cancelAll` reaches them all.
    private struct RunningLoads {
        var nextID: UInt64 = 1
        var loads: [UInt64: any CancellableLoad] = [:]
    }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public convenience init(cache: any ImageCache = MemoryCache(), loaders: [any ImageLoader], coders: [any ImageCoder]) {
        self.init(configuration: Configuration(cache: cache, loaders: LoaderRegistry(loaders), coders: CoderRegistry(coders)))
    }

    public var cache: any ImageCache { configuration.cache }
    public var loaders: LoaderRegistry { configuration.loaders }
    public var coders: CoderRegistry { configuration.coders }

    // MARK: Loading

    /// Loads the image for `url`; throws ``ImageKernelError`` (code `cancelled` when the calling
    /// task is cancelled).
    /// - Parameters:
    ///   - url: The image's URL; nil fails with `invalidURL`.
    ///   - options: How this load uses the cache and the loader.
    ///   - context: Per-request overrides of the manager's parts and settings.
    ///   - events: progress, previews and (with `refreshCached`) the cached image.
    public func image(
        for url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext(),
        events: (@Sendable (ImageLoadEvent) -> Void)? = nil
    ) async throws(ImageKernelError) -> ImageResult {
        if let hit = finishedInMemory(url: url, options: options, context: context) { return hit }
        let caller = Caller(priority: LoadPriority(options), events: events)
        let id = register(caller)
        defer { unregister(id) }
        return try await perform(url: url, options: options, context: context, caller: caller, lookedInMemory: true)
    }

    /// Loads the image for a URL string; an empty or unparsable string fails with `invalidURL`.
    public func image(
        for urlString: String, options: ImageOptions = [], context: ImageContext = ImageContext(),
        events: (@Sendable (ImageLoadEvent) -> Void)? = nil
    ) async throws(ImageKernelError) -> ImageResult {
        try await image(for: URL(string: urlString), options: options, context: context, events: events)
    }

    /// Starts a load and returns its operation. `completion` runs exactly once, on an arbitrary
    /// thread; see ``ImageOperation``.
    @discardableResult
    public func loadImage(
        with url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext(),
        events: (@Sendable (ImageLoadEvent) -> Void)? = nil,
        completion: @escaping @Sendable (Result<ImageResult, ImageKernelError>) -> Void
    ) -> ImageOperation {
        let operation = running.withLock { state in
            let op = ImageOperation(id: state.nextID, url: url, events: events, completion: completion)
            state.nextID += 1
            state.loads[op.id] = op
            return op
        }
        let forward: (@Sendable (ImageLoadEvent) -> Void)? = events == nil ? nil : { @Sendable event in operation.emit(event) }
        let caller = Caller(priority: LoadPriority(options), events: forward)
        let task = Task {
            let result: Result<ImageResult, ImageKernelError>
            do throws(ImageKernelError) {
                result = .success(try await perform(url: url, options: options, context: context, caller: caller))
            } catch {
                result = .failure(error)
            }
            operation.finish(result)
            unregister(operation.id)
        }
        operation.attach(task)
        return operation
    }

    /// Cancels every running load: operations from `loadImage` and `image(for:)` calls alike
    /// (each completes or throws with `cancelled`).
    public func cancelAll() {
        let loads = running.withLock { Array($0.loads.values) }
        for load in loads { load.cancel() }
    }

    /// Whether any load (`loadImage` or `image(for:)`) is still running.
    public var isRunning: Bool { runningCount > 0 }
    /// The number of loads (`loadImage` operations and `image(for:)` calls) still running.
    public var runningCount: Int { running.withLock { $0.loads.count } }

    /// How many result variants wait on downloads in flight (internal, for tests: a variant has
    /// joined a shared download once it is counted here).
    var downloadSubscriberCount: Int { downloads.subscriberCount }

    /// How many callers wait on result work in flight (internal, for tests: a caller shares the
    /// result of others once it is counted here).
    var resultSubscriberCount: Int { results.subscriberCount }

    private func register(_ load: any CancellableLoad) -> UInt64 {
        running.withLock { state in
            defer { state.nextID += 1 }
            state.loads[state.nextID] = load
            return state.nextID
        }
    }

    private func unregister(_ id: UInt64) {
        _ = running.withLock { $0.loads.removeValue(forKey: id) }
    }

    // MARK: Failed URLs

    /// Whether the URL is on the failed list (rule 2).
    public func isFailed(_ url: URL) -> Bool { failed.withLock { $0.contains(url) } }
    /// Removes a URL from the failed list.
    public func removeFailedURL(_ url: URL) { _ = failed.withLock { $0.remove(url) } }
    /// Empties the failed list.
    public func removeAllFailedURLs() { failed.withLock { $0.removeAll() } }
    func markFailed(_ url: URL) { _ = failed.withLock { $0.insert(url) } }
    /// Cheap check that skips hashing the URL when nothing ever failed.
    var hasFailures: Bool { failed.withLock { !$0.isEmpty } }

    // MARK: Keys

    /// The final cache key for a URL under a context — the key its result is cached under: the
    /// key filter's key, then the thumbnail and transformer suffixes (rule 3). Nil when the key
    /// filter declines to cache the URL.
    public func cacheKey(for url: URL, context: ImageContext = ImageContext()) -> String? {
        guard let base = originalCacheKey(for: url, context: context) else { return nil }
        return variantKey(base, context: context)
    }

    /// The original cache key for a URL under a context: the key filter's key alone, under which
    /// the untransformed original is kept (rule 8). Nil when the key filter declines.
    public func originalCacheKey(for url: URL, context: ImageContext = ImageContext()) -> String? {
        (context.cacheKeyFilter ?? configuration.cacheKeyFilter).cacheKey(for: url)
    }

    func variantKey(_ base: String, context: ImageContext) -> String {
        var key = base
        if let size = context.thumbnailPixelSize, !size.isEmpty { key = CacheKey.thumbnail(key, size: size) }
        if let transformer = transformer(for: context) {
            key = CacheKey.transformed(key, transformerKey: transformer.key)
        }
        return key
    }

    /// What runs after the decode: the colour conversion the context (or configuration) asks for,
    /// when a converter is registered, then the context's (or configuration's) transformer.
    func transformer(for context: ImageContext) -> (any ImageTransformer)? {
        let user = context.transformer ?? configuration.transformer
        guard let conversion = context.colorConversion ?? configuration.colorConversion,
              let converter = configuration.colorConverter else { return user }
        let color = ColorConversionTransformer(converter: converter, conversion: conversion)
        guard let user else { return color }
        return TransformerChain([color, user])
    }
}
