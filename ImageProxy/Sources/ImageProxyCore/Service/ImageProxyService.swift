import CacheDisk
import CacheRedis
import CoderGIF
import CoderHEIF
import CoderJPEG
import CoderPNG
import CoderWebP
import Foundation
import ImageKernel
import LoaderFile
import LoaderHTTP
import LoaderS3
import Logging
import Metrics
import Transformers

/// The image service without its HTTP server: parses, authorises and renders requests.
///
/// One shared ``ImageManager`` loads sources (LoaderHTTP, redirects followed here and checked
/// against the ``OriginPolicy``; LoaderS3 for `s3://` sources when a bucket is allowed; originals cached in memory → disk → the shared Redis tier when
/// configured). Renders (decode with every registered coder, orient, the transform spec, encode)
/// are coalesced per result, bounded by a ``TransformGate``, and kept encoded in memory, on disk,
/// in a result bucket (``ProxyS3Settings/resultStorage``) when configured and, with a shared tier,
/// in it: one render per result across the fleet (`SharedResults`).
public final class ImageProxyService: Sendable {
    public let configuration: ProxyConfiguration
    /// The manager every source goes through.
    public let manager: ImageManager
    let policy: OriginPolicy
    let loader: HTTPLoader
    let results: ResultMemoryCache
    let resultDisk: DiskCache?
    let originalDisk: DiskCache?
    /// Results kept in a bucket (``ProxyS3Settings/resultStorage``), shared with other instances.
    let resultBucket: ResultBucket?
    let gate: TransformGate
    let encodable: Set<ImageFormat>
    let logger: Logger
    /// Renders running, by result key: joined by every request for the same result.
    let inflight = Locked<[String: RenderInFlight]>([:])
    /// Cancels source loads that pass ``ProxyConfiguration/sourceTimeout``.
    let deadlines = DeadlineWatch()
    /// Paths (with their Accept) already parsed, authorised and allowed → result key, and whether
    /// the format was negotiated. Cleared when its paths and keys would pass ``routeBytesLimit``
    /// (paths are up to 8 KB each, so a count alone would not bound it).
    let routes = Locked<(map: [String: Route], bytes: Int)>(([:], 0))
    static let routeBytesLimit = 16 << 20
    /// Spec texts parsed before → the spec and its key: a service sees few distinct specs (its
    /// sizes and presets), and parsing one and forming its key took 5 µs of a cold request.
    /// Cleared when it reaches ``specLimit`` texts.
    let specs = Locked<[String: (spec: TransformSpec, key: String)]>([:])
    static let specLimit = 1024
    /// Results being written to disk after their answer.
    let pendingStores = Locked(0)
    /// Which files `local:///` sources may read.
    let localPolicy: LocalSourcePolicy
    /// Reads local sources, within ``ProxyConfiguration/maxSourceBytes``.
    let fileLoader: FileLoader
    /// The output defaults' part of every result key (``ProxyConfiguration/outputDefaultsKey``).
    let outputDefaultsKey: String
    /// The decoded watermark (``prepare()``) and its digest, for the `watermark` step.
    let watermark = Locked<(image: Image, digest: String)?>(nil)
    /// Results shared with the fleet through the shared tier, and one render per result across
    /// it (`SharedResults`); nil without ``ProxyConfiguration/sharedCache``.
    let shared: SharedResults?
    /// Real renders (decode, transform, encode) this instance ran: `imageproxy_renders_total`.
    let renders = Counter(label: "imageproxy_renders_total")
    /// Which originals are kept on disk and in the shared tier, on which use
    /// (``ProxyConfiguration/originalMinUses``).
    let originalAdmission: OriginalAdmission

    /// A service for `configuration`.
    /// - Throws: ``ProxyError`` for an allowed origin or shared-cache URL that does not parse.
    public init(configuration: ProxyConfiguration, logger: Logger = Logger(label: "image-proxy")) throws(ProxyError) {
        self.configuration = configuration
        self.logger = logger
        policy = try OriginPolicy(allowedPrefixes: configuration.allowedOrigins)
        localPolicy = try LocalSourcePolicy(root: configuration.localRoot)
        fileLoader = FileLoader(configuration: .init(maxFileSize: configuration.maxSourceBytes))
        outputDefaultsKey = configuration.outputDefaultsKey
        var http = HTTPLoader.Configuration()
        http.maxConcurrentDownloads = configuration.maxConcurrentDownloads
        http.maxRedirects = 0  // followed by the service, so each hop is checked against the policy
        http.maxBodySize = configuration.maxSourceBytes
        http.timeout = configuration.sourceTimeout
        http.adaptsPerHostRate = false
        do {
            loader = try HTTPLoader(configuration: http)
        } catch {
            throw ProxyError(status: 500, code: "invalid_configuration", message: "LoaderHTTP: \(error)")
        }
        var loaders: [any ImageLoader] = [loader]
        if policy.allowsS3 { loaders.append(try Self.bucketLoader(configuration)) }
        resultBucket = try configuration.s3.resultStorage.map { url throws(ProxyError) in
            try ResultBucket(url: url, settings: configuration.s3, maxBytes: configuration.maxOutputBytes, maxAge: configuration.maxAge, logger: logger)
        }
        let coders = CoderRegistry(Self.coders())
        encodable = Set(OutputChoice.outputFormats.filter { coders.coder(forEncoding: $0) != nil })

        var lower: [any ImageCache] = []
        if let url = configuration.sharedCache {
            do {
                var redis = try RedisCache.Configuration(url: url)
                redis.timeout = configuration.sharedCacheTimeout
                let tier = RedisCache(configuration: redis)
                lower.append(tier)
                shared = SharedResults(tier: tier)
            } catch {
                throw ProxyError(status: 500, code: "invalid_configuration", message: "--shared-cache: \(error.message)")
            }
        } else {
            shared = nil
        }
        let cache: any ImageCache
        if let directory = configuration.cacheDirectory {
            // Only this service writes these directories: a miss needs no second look for a name
            // without its extension (SDWebImage's old naming).
            func disk(_ name: String) -> DiskCache {
                var disk = DiskCache.Configuration(directory: directory.appendingPathComponent(name))
                disk.readsNamesWithoutExtension = false
                return DiskCache(configuration: disk)
            }
            let originals = disk("originals")
            originalDisk = originals
            resultDisk = disk("results")
            cache = TieredCache(memory: MemoryCache(costLimit: 64 << 20), backing: originals, lowerTiers: lower)
        } else {
            originalDisk = nil
            resultDisk = nil
            if let shared = lower.first {
                cache = TieredCache(memory: MemoryCache(costLimit: 64 << 20), backing: shared)
            } else {
                cache = MemoryCache(costLimit: 64 << 20)
            }
        }
        manager = ImageManager(configuration: .init(cache: cache, loaders: LoaderRegistry(loaders), coders: coders))
        results = ResultMemoryCache(limit: configuration.memoryBytes)
        gate = TransformGate(width: configuration.maxConcurrentTransforms, queueLimit: configuration.maxQueuedTransforms)
        originalAdmission = OriginalAdmission(minUses: configuration.originalMinUses)
    }

    /// LoaderS3 for `s3://` sources, with the source limits and ``ProxyConfiguration/s3``'s store.
    private static func bucketLoader(_ configuration: ProxyConfiguration) throws(ProxyError) -> S3Loader {
        var s3 = configuration.s3.loaderConfiguration
        s3.http.maxConcurrentDownloads = configuration.maxConcurrentDownloads
        s3.http.maxBodySize = configuration.maxSourceBytes
        s3.http.timeout = configuration.sourceTimeout
        s3.http.adaptsPerHostRate = false
        do {
            return try S3Loader(configuration: s3)
        } catch {
            throw ProxyError(status: 500, code: "invalid_configuration", message: "LoaderS3: \(error)")
        }
    }

    /// Whether the service runs without a key (signature `unsafe`).
    public var isUnsafe: Bool { configuration.signer == nil }

    /// The path for a source and spec, signed with the service's key (or `unsafe`): what the
    /// gallery links to and what clients build.
    public func path(for source: URL, spec: String, format: ImageFormat? = nil) -> String {
        path(forSourceText: source.absoluteString, spec: spec, format: format)
    }

    /// ``path(for:spec:format:)`` for a source given as text.
    public func path(forSourceText source: String, spec: String, format: ImageFormat? = nil) -> String {
        let encoded = source.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? ""
        var rest = spec.isEmpty ? "" : "/" + spec
        rest += "/plain/" + encoded
        if let format { rest += "@" + format.rawValue }
        let signature = configuration.signer?.signature(for: rest) ?? "unsafe"
        return "/" + signature + rest
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Answers an image request path; `clientHints` count only where the service reads them
    /// (``readsClientHints``).
    public func respond(path: String, accept: String?, ifNoneMatch: String?, clientHints: ImgproxyClientHints? = nil) async -> ProxyResponse {
        if let answer = cachedAnswer(path: path, accept: accept, ifNoneMatch: ifNoneMatch, clientHints: clientHints) { return answer }
        let routeKey = self.routeKey(path: path, accept: accept, clientHints: clientHints)
        if let settings = configuration.compat {
            return await respondImgproxy(
                path: path, accept: accept, ifNoneMatch: ifNoneMatch, settings: settings, hints: settings.enablesClientHints ? clientHints : nil, routeKey: routeKey)
        }
        do throws(ProxyError) {
            let request = try ProxyRequest.parse(path: path, presets: configuration.presets)
            try authorise(request)
            try checkSource(request.source)
            let parsed = request.steps.isEmpty ? nil : try parsedSpec(request.specText)
            let choice: OutputChoice
            if let format = request.format {
                guard encodable.contains(format) else { throw ProxyError.unsupportedFormat("no registered coder encodes \(format)") }
                choice = .format(format)
            } else {
                choice = OutputChoice.negotiate(accept: accept, encodable: encodable)
            }
            let key = resultKey(source: request.source, specKey: parsed?.key, choice: choice, output: request.output)
            let route = Route(key: key, negotiated: request.format == nil, disposition: ContentDisposition(request.output, source: request.source))
            remember(route: routeKey, route)
            let (rendered, cacheType) = try await render(key: key, source: request.source, spec: parsed?.spec, choice: choice, output: request.output)
            return success(rendered, cacheType: cacheType, route: route, ifNoneMatch: ifNoneMatch)
        } catch {
            return .error(error)
        }
    }
}
