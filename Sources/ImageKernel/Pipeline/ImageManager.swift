import Foundation
import Logging

/// Turns a URL into an image: cache query, load, decode, transform, store — SDWebImageManager's
/// contract (DESIGN.md rules 1–8).
///
/// Use ``image(for:options:context:events:)`` from async code, or
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
        /// Encode options used when re-encoding transformed images for the cache.
        public var encodeOptions: EncodeOptions
        /// Log through swift-log; nil (the default) logs nothing and costs nothing.
        public var logger: Logger?
        /// Count through swift-metrics; nil (the default) counts nothing and costs nothing.
        public var metrics: ImageMetrics?

        public init(
            cache: any ImageCache = MemoryCache(), loaders: LoaderRegistry = LoaderRegistry(),
            coders: CoderRegistry = CoderRegistry(), cacheKeyFilter: any CacheKeyFilter = AbsoluteURLCacheKeyFilter(),
            transformer: (any ImageTransformer)? = nil, delegate: (any ImageManagerDelegate)? = nil,
            pixelLimit: Int = DecodeOptions.defaultPixelLimit, encodeOptions: EncodeOptions = EncodeOptions(),
            logger: Logger? = nil, metrics: ImageMetrics? = nil
        ) {
            self.cache = cache
            self.loaders = loaders
            self.coders = coders
            self.cacheKeyFilter = cacheKeyFilter
            self.transformer = transformer
            self.delegate = delegate
            self.pixelLimit = pixelLimit
            self.encodeOptions = encodeOptions
            self.logger = logger
            self.metrics = metrics
        }
    }

    public let configuration: Configuration
    private let failed = Locked<Set<URL>>([])
    private let running = Locked<RunningOperations>(RunningOperations())

    private struct RunningOperations {
        var nextID: UInt64 = 1
        var operations: [UInt64: ImageOperation] = [:]
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
    /// - Parameter events: progress, previews and (with `refreshCached`) the cached image.
    public func image(
        for url: URL?, options: ImageOptions = [], context: ImageContext = ImageContext(),
        events: (@Sendable (ImageLoadEvent) -> Void)? = nil
    ) async throws(ImageKernelError) -> ImageResult {
        do {
            return try await perform(url: url, options: options, context: context, emit: events ?? { _ in })
        } catch {
            throw ImageKernelError.wrap(error, stage: .request)
        }
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
            state.operations[op.id] = op
            return op
        }
        let task = Task {
            let result: Result<ImageResult, ImageKernelError>
            do {
                result = .success(try await perform(url: url, options: options, context: context, emit: { operation.emit($0) }))
            } catch {
                result = .failure(ImageKernelError.wrap(error, stage: .request))
            }
            operation.finish(result)
            _ = running.withLock { $0.operations.removeValue(forKey: operation.id) }
        }
        operation.attach(task)
        return operation
    }

    /// Cancels every running operation.
    public func cancelAll() {
        let operations = running.withLock { Array($0.operations.values) }
        for operation in operations { operation.cancel() }
    }

    /// Whether any operation started with `loadImage` is still running.
    public var isRunning: Bool { runningCount > 0 }
    /// The number of operations started with `loadImage` that are still running.
    public var runningCount: Int { running.withLock { $0.operations.count } }

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

    /// The cache key for a URL under a context: key filter, then thumbnail and transformer suffixes (rule 3).
    public func cacheKey(for url: URL, context: ImageContext = ImageContext()) -> String? {
        guard let base = originalCacheKey(for: url, context: context) else { return nil }
        return variantKey(base, context: context)
    }

    func originalCacheKey(for url: URL, context: ImageContext) -> String? {
        (context.cacheKeyFilter ?? configuration.cacheKeyFilter).cacheKey(for: url)
    }

    func variantKey(_ base: String, context: ImageContext) -> String {
        var key = base
        if let size = context.thumbnailPixelSize { key = CacheKey.thumbnail(key, size: size) }
        if let transformer = context.transformer ?? configuration.transformer {
            key = CacheKey.transformed(key, transformerKey: transformer.key)
        }
        return key
    }
}
