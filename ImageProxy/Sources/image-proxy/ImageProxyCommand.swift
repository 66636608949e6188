import ArgumentParser
import Foundation
import Hummingbird
import ImageKernel
import ImageProxyCore
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import Tracing

/// `image-proxy`: an imgproxy-style image service on Hummingbird.
@main
struct ImageProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image-proxy",
        abstract: "An imgproxy-style image service: GET /{signature}/{spec}/plain/{source URL}[@format].")

    @Option(help: "Port to listen on (0 picks a free one; the line 'listening on …' tells which).")
    var port: Int = 8080

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(name: .customLong("allow-origin"), parsing: .upToNextOption, help: "URL prefixes sources may start with (one or more; repeatable); s3://bucket/ allows one bucket.")
    var allowOrigins: [String] = []

    @Option(help: "Keep originals and results on disk in this directory.")
    var cacheDir: String?

    @Option(help: "A signing key, hex (imgproxy's IMGPROXY_KEY); repeatable, paired in order with --salt: any pair may sign.")
    var key: [String] = []

    @Option(help: "A signing salt, hex (imgproxy's IMGPROXY_SALT); repeatable, one per --key.")
    var salt: [String] = []

    @OptionGroup var compat: CompatOptions

    @OptionGroup var s3: S3Options

    @Option(help: "Megabytes of encoded results kept in memory.")
    var memoryMb: Int = 256

    @Option(help: "On which use a source is kept on disk and in the shared cache, as nginx's proxy_cache_min_uses: 2 (the default) skips sources rendered once; 1 keeps every original.")
    var originalMinUses: Int = 2

    @Option(help: "Share originals and results with a fleet, one render per result across it, through Redis: redis://[:password@]host:port/db, or a Redis Cluster: redis+cluster://host:port,host:port.")
    var sharedCache: String?

    @Option(help: "How long one wait on the shared cache (connect, write, read) may take, in milliseconds, before it counts as a miss (or a store not made): the service never waits longer for Redis.")
    var sharedCacheTimeoutMs: Int = 50

    @Option(help: "Largest source in megabytes.")
    var maxSourceMb: Int = 32

    @Option(help: "Most pixels a source may have, in megapixels.")
    var maxSourceMegapixels: Int = 60

    @Option(help: "Frames of an animated GIF, WebP or JPEG XL kept in an animated result: a longer animation keeps its first this many (1: always a still). Default 256, or 1 with --compat imgproxy (imgproxy's IMGPROXY_MAX_ANIMATION_FRAMES default).")
    var maxAnimationFrames: Int?

    @Option(help: "Most pixels of each frame of an animation kept animated, in megapixels (fractions allowed); 0 checks all frames together against --max-source-megapixels.")
    var maxAnimationFrameMegapixels: Double = 0

    @Option(help: "Renders at once (default: one per core).")
    var maxConcurrentTransforms: Int?

    @Option(help: "Renders that may wait; more are answered 503.")
    var maxQueuedTransforms: Int = 128

    @Option(help: "Seconds a source may take in all, redirects included.")
    var sourceTimeout: Double = 10

    @Option(help: "Cache-Control max-age of results, in seconds.")
    var maxAge: Int = 30 * 86400

    @Flag(help: "Keep a source's ICC profile (pixels untouched) instead of converting to sRGB and writing none (imgproxy's IMGPROXY_STRIP_COLOR_PROFILE=false).")
    var keepColorProfile = false

    @Option(name: .customLong("preset"), help: "A named spec, NAME=SPEC, used in paths as preset:NAME (repeatable).")
    var presets: [String] = []

    @Option(help: "A file of presets, one NAME=SPEC a line (# comments).")
    var presetsFile: String?

    @Flag(help: "Serve presets only: refuse (403 presets_only) every spec that is not only preset:NAME segments.")
    var onlyPresets = false

    @Option(help: "Serve local:///path sources from under this directory (off without it).")
    var localRoot: String?

    @Flag(help: "Write progressive JPEGs unless a request says progressive:0.")
    var jpegProgressive = false

    @Flag(help: "Write interlaced (Adam7) PNGs unless a request says progressive:0.")
    var pngInterlaced = false

    @Option(name: .customLong("quality"), help: "Default quality of a format, FORMAT=Q (repeatable; defaults jpeg=80 webp=79 avif=63 jxl=77, others 80); a bare Q sets the others.")
    var qualities: [String] = []

    @Option(help: "The image the watermark step places: a file path or an http(s) URL under --allow-origin, loaded once at start.")
    var watermark: String?

    @Flag(help: "Keep EXIF Copyright and Artist, XMP rights and creator and IPTC copyright notice and by-line in results; by default results carry no metadata (imgproxy's IMGPROXY_KEEP_COPYRIGHT).")
    var keepCopyright = false

    @Option(help: "Seconds requests in hand (renders included) may take to finish after SIGTERM or SIGINT; past it they are cancelled.")
    var shutdownTimeout: Double = 30

    @Option(help: "Seconds between SIGTERM (from when /health answers 503) and the listener closing.")
    var shutdownGrace: Double = 1

    @Flag(inversion: .prefixedNo, help: "Answer results already in memory on the connection's event loop, without a task (off: every request goes through the router; the answers are the same).")
    var eventLoopAnswers = true

    @Option(help: "Log level (trace, debug, info, notice, warning, error, critical); info logs one line per request.")
    var logLevel: String = "info"

    func validate() throws {
        if allowOrigins.isEmpty { throw ValidationError("name at least one --allow-origin URL prefix") }
        if key.count != salt.count { throw ValidationError("--key and --salt go together, one salt per key") }
        if signers.count != key.count { throw ValidationError("--key and --salt take hex; the key must not be empty") }
        if key.count > 1 && compat.compat == .native { throw ValidationError("several --key/--salt pairs need --compat imgproxy") }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("unknown --log-level \(logLevel)") }
        if memoryMb < 0 || (maxAnimationFrames ?? 1) < 1 || maxSourceMb < 1 || maxSourceMegapixels < 1 || sourceTimeout <= 0 || sharedCacheTimeoutMs < 1 || originalMinUses < 1 { throw ValidationError("limits must be positive") }
        if !(0...1_000_000).contains(maxAnimationFrameMegapixels) { throw ValidationError("--max-animation-frame-megapixels must be 0…1000000") }
        if shutdownTimeout <= 0 || shutdownGrace < 0 || shutdownGrace > shutdownTimeout {
            throw ValidationError("--shutdown-timeout must be positive and --shutdown-grace between 0 and it")
        }
    }

    /// The `--key`/`--salt` pairs that parse.
    var signers: [ProxySigner] { zip(key, salt).compactMap { ProxySigner(keyHex: $0, saltHex: $1) } }

    /// `--quality FORMAT=Q` (or a bare `Q`, the default of formats not named).
    static func applyQualities(_ texts: [String], to configuration: inout ProxyConfiguration) throws {
        for text in texts {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard let q = Int(parts.last ?? ""), (1...100).contains(q) else { throw ValidationError("--quality \(text): Q is 1…100") }
            if parts.count == 1 {
                configuration.defaultQuality = q
            } else if let format = ImageFormat(fileExtension: parts[0]) ?? (parts[0].lowercased() == "jxl" ? ImageFormat(rawValue: "jxl") : nil) {
                configuration.formatQuality[format] = q
            } else {
                throw ValidationError("--quality \(text): \(parts[0]) is not a format")
            }
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in ProxyLogHandler(label: label, level: level) }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "image-proxy")

        var configuration = ProxyConfiguration(allowedOrigins: allowOrigins)
        configuration.signer = signers.first
        configuration.cacheDirectory = cacheDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
        configuration.memoryBytes = memoryMb << 20
        configuration.originalMinUses = originalMinUses
        configuration.sharedCache = sharedCache
        configuration.sharedCacheTimeout = .milliseconds(sharedCacheTimeoutMs)
        configuration.s3 = s3.settings
        configuration.maxSourceBytes = Int64(maxSourceMb) << 20
        configuration.maxSourcePixels = maxSourceMegapixels * 1_000_000
        if let maxConcurrentTransforms { configuration.maxConcurrentTransforms = maxConcurrentTransforms }
        configuration.maxQueuedTransforms = maxQueuedTransforms
        configuration.maxAnimationFrames = maxAnimationFrames ?? (compat.compat == .imgproxy ? 1 : 256)
        configuration.maxAnimationFramePixels = Int((maxAnimationFrameMegapixels * 1_000_000).rounded(.down))
        configuration.sourceTimeout = .milliseconds(Int(sourceTimeout * 1000))
        configuration.maxAge = maxAge
        configuration.keepsColorProfile = keepColorProfile
        configuration.localRoot = localRoot
        configuration.jpegProgressive = jpegProgressive
        configuration.pngInterlaced = pngInterlaced
        configuration.watermark = watermark
        try Self.applyQualities(qualities, to: &configuration)
        configuration.keepsCopyright = keepCopyright
        configuration.keepsAllMetadata = !compat.stripMetadata
        let service: ImageProxyService
        do {
            var definitions = presets
            if let presetsFile {
                definitions += ProxyPresets.definitions(inFile: try String(contentsOfFile: presetsFile, encoding: .utf8))
            }
            configuration.compat = try compat.settings(signers: signers, presets: definitions, onlyPresets: onlyPresets)
            if configuration.compat == nil { configuration.presets = try ProxyPresets(definitions: definitions, onlyPresets: onlyPresets) }
            service = try ImageProxyService(configuration: configuration, logger: logger)
            try await service.prepare()
        } catch let error as ProxyError {
            throw ValidationError(error.message)
        }
        if service.isUnsafe {
            logger.warning("running without --key/--salt: every request must use the signature 'unsafe' and anyone can ask for any transform")
        }
        let drain = DrainState()
        // Result bodies kept as buffers beside the result cache: a quarter of its size more.
        let routes = ProxyRoutes(service: service, registry: registry, logger: logger, drain: drain, bodyBytes: configuration.memoryBytes / 4)
        let host = self.host
        // Cached results are answered on the event loop (HotAnswerHandler). It opens no span, so
        // it stays out when a tracer is bootstrapped (none is today: spans are no-ops).
        let hot = eventLoopAnswers && InstrumentationSystem.tracer is NoOpTracer
        let app = Application(
            responder: CallbackResponder<BasicRequestContext> { request, _ in await routes.respond(to: request) },
            server: hot ? .http1(answeringFromMemory: routes) : .http1(),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                print("listening on http://\(host):\(channel.localAddress?.port ?? 0)")
                fflush(nil)
            },
            logger: Logger(label: "hummingbird", factory: { ProxyLogHandler(label: $0, level: .warning) }))
        // SIGTERM/SIGINT: the drain service hears it first (/health 503, then the grace), then
        // the server closes its listener and finishes the requests in hand; past the timeout the
        // group cancels what is left.
        var group = ServiceGroupConfiguration(
            services: [.init(service: app), .init(service: DrainService(state: drain, grace: .seconds(shutdownGrace), logger: logger))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(shutdownTimeout)
        try await ServiceGroup(configuration: group).run()
        await service.waitUntilIdle()
        logger.notice("stopped")
    }
}
