import CacheDisk
import CacheRedis
import CoderGIF
import CoderHEIF
import CoderJPEG
import CoderPNG
import CoderWebP
import Foundation
import ImageKernel
import LoaderHTTP
import Logging
import Transformers

/// The image service without its HTTP server: parses, authorises and renders requests.
///
/// One shared ``ImageManager`` loads sources (LoaderHTTP, redirects followed here and checked
/// against the ``OriginPolicy``; originals cached in memory → disk → the shared Redis tier when
/// configured). Renders (decode with every registered coder, orient, the transform spec, encode)
/// are coalesced per result, bounded by a ``TransformGate``, and kept encoded in memory and on disk.
public final class ImageProxyService: Sendable {
    public let configuration: ProxyConfiguration
    /// The manager every source goes through.
    public let manager: ImageManager
    let policy: OriginPolicy
    let loader: HTTPLoader
    let results: ResultMemoryCache
    let resultDisk: DiskCache?
    let originalDisk: DiskCache?
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
    private let routes = Locked<(map: [String: (key: String, negotiated: Bool)], bytes: Int)>(([:], 0))
    static let routeBytesLimit = 16 << 20
    /// Spec texts parsed before → the spec and its key: a service sees few distinct specs (its
    /// sizes and presets), and parsing one and forming its key took 5 µs of a cold request.
    /// Cleared when it reaches ``specLimit`` texts.
    private let specs = Locked<[String: (spec: TransformSpec, key: String)]>([:])
    static let specLimit = 1024
    /// Results being written to disk after their answer.
    let pendingStores = Locked(0)

    /// A service for `configuration`.
    /// - Throws: ``ProxyError`` for an allowed origin or shared-cache URL that does not parse.
    public init(configuration: ProxyConfiguration, logger: Logger = Logger(label: "image-proxy")) throws(ProxyError) {
        self.configuration = configuration
        self.logger = logger
        policy = try OriginPolicy(allowedPrefixes: configuration.allowedOrigins)
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
        let coders = CoderRegistry(Self.coders())
        encodable = Set(OutputChoice.outputFormats.filter { coders.coder(forEncoding: $0) != nil })

        var lower: [any ImageCache] = []
        if let url = configuration.sharedCache {
            do {
                lower.append(RedisCache(configuration: try RedisCache.Configuration(url: url)))
            } catch {
                throw ProxyError(status: 500, code: "invalid_configuration", message: "--shared-cache: \(error.message)")
            }
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
        manager = ImageManager(configuration: .init(cache: cache, loaders: LoaderRegistry([loader]), coders: coders))
        results = ResultMemoryCache(limit: configuration.memoryBytes)
        gate = TransformGate(width: configuration.maxConcurrentTransforms, queueLimit: configuration.maxQueuedTransforms)
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

    /// Answers an image request path.
    public func respond(path: String, accept: String?, ifNoneMatch: String?) async -> ProxyResponse {
        // The hot path: a path (with this Accept) that was parsed, authorised and allowed before
        // maps straight to its result key; the path alone decides all three, so none is redone.
        let routeKey = accept.map { path + "\u{0}" + $0 } ?? path
        if let route = routes.withLock({ $0.map[routeKey] }), let hit = results.value(forKey: route.key) {
            return success(hit, cacheType: "memory", negotiated: route.negotiated, ifNoneMatch: ifNoneMatch)
        }
        do throws(ProxyError) {
            let request = try ProxyRequest.parse(path: path)
            try authorise(request)
            try policy.check(request.source)
            let parsed = request.steps.isEmpty ? nil : try parsedSpec(request.specText)
            let spec = parsed?.spec
            let choice: OutputChoice
            if let format = request.format {
                guard encodable.contains(format) else { throw ProxyError.unsupportedFormat("no registered coder encodes \(format)") }
                choice = .format(format)
            } else {
                choice = OutputChoice.negotiate(accept: accept, encodable: encodable)
            }
            let quality = request.quality ?? configuration.defaultQuality
            let key = Self.resultKey(source: request.source, specKey: parsed?.key, choice: choice, quality: quality)
            routes.withLock { routes in
                let cost = routeKey.utf8.count + key.utf8.count
                if routes.bytes + cost > Self.routeBytesLimit {
                    routes.map.removeAll(keepingCapacity: true)
                    routes.bytes = 0
                }
                if routes.map.updateValue((key, request.format == nil), forKey: routeKey) == nil { routes.bytes += cost }
            }
            let (rendered, cacheType) = try await render(key: key, source: request.source, spec: spec, choice: choice, quality: quality)
            return success(rendered, cacheType: cacheType, negotiated: request.format == nil, ifNoneMatch: ifNoneMatch)
        } catch {
            return .error(error)
        }
    }

    private func authorise(_ request: ProxyRequest) throws(ProxyError) {
        guard let signer = configuration.signer else {
            guard request.signature == "unsafe" else { throw .invalidSignature("this service runs without a key and accepts only the signature unsafe") }
            return
        }
        guard signer.isValid(request.signature, for: request.signedPath) else {
            throw .invalidSignature("the signature does not match the path")
        }
    }

    private func success(_ rendered: Rendered, cacheType: String, negotiated: Bool, ifNoneMatch: String?) -> ProxyResponse {
        var headers: [(name: String, value: String)] = [
            ("ETag", rendered.etag), ("Cache-Control", "public, max-age=\(configuration.maxAge)"),
        ]
        if negotiated { headers.append(("Vary", "Accept")) }
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag: rendered.etag) {
            return ProxyResponse(status: 304, headers: headers, body: Data(), cacheType: cacheType)
        }
        headers.insert(contentsOf: [("Content-Type", rendered.format.mediaType), ("Content-Length", "\(rendered.data.count)")], at: 0)
        return ProxyResponse(status: 200, headers: headers, body: rendered.data, cacheType: cacheType)
    }

    /// `If-None-Match` semantics (weak comparison, as RFC 9110 asks for it): `*` or any listed tag.
    static func matches(_ ifNoneMatch: String, etag: String) -> Bool {
        let bare = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        for item in ifNoneMatch.split(separator: ",") {
            var tag = item.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == bare { return true }
        }
        return false
    }

    // MARK: Rendering

    /// The result for one source, spec, format and quality: from memory, else joined to the render
    /// already running for it, else rendered (from the results on disk, or the source) on this
    /// request's own task.
    func render(key: String, source: URL, spec: TransformSpec?, choice: OutputChoice, quality: Int) async throws(ProxyError) -> (Rendered, String) {
        while true {
            if let hit = results.value(forKey: key) { return (hit, "memory") }
            let (shared, leads) = inflight.withLock { running -> (RenderInFlight, Bool) in
                if let shared = running[key] { return (shared, false) }
                let shared = RenderInFlight()
                running[key] = shared
                return (shared, true)
            }
            if leads {
                let outcome = await produce(key: key, source: source, spec: spec, choice: choice, quality: quality)
                inflight.withLock { _ = $0.removeValue(forKey: key) }
                shared.finish(outcome)
                return try outcome.get()
            }
            let outcome = await shared.outcome()
            // A render its own request's cancellation ended (a client gone, a server stopping) is
            // no answer for this request: it renders again, unless it was cancelled too.
            if case .failure(let error) = outcome, error.code == ImageKernelError.Code.cancelled.rawValue, !Task.isCancelled { continue }
            return try outcome.get()
        }
    }

    private func produce(key: String, source: URL, spec: TransformSpec?, choice: OutputChoice, quality: Int) async -> Result<(Rendered, String), ProxyError> {
        do throws(ProxyError) {
            if let stored = await storedResult(key: key) {
                results.set(stored, forKey: key)
                return .success((stored, "disk"))
            }
            let loaded = try await loadSource(source)
            let data = loaded.data
            // The original reaches the disk while the render runs (the other core, when there is
            // one), and before the answer, as it did when the manager stored it first; without a
            // strong validator from the origin, the digest of the source for the ETag is taken
            // there too.
            let validator = loaded.strongValidator
            // Set by the pipeline's second thread when it keeps the result on disk itself.
            let keptBesideTheAnswer = Locked<Rendered?>(nil)
            async let sourceDigest: Data? = {
                await keepOriginal(loaded)
                return validator == nil ? Digest.bytes(of: data) : nil
            }()
            let limits = configuration
            let encodable = self.encodable
            let coders = manager.coders
            let gate = self.gate
            let pixels = SourceDimensions.pixelCount(of: data, format: ImageFormat.sniff(data))
            let (encoded, format) = try await gate.run(inline: pixels.map { $0 <= Self.inlineRenderPixels } ?? false) { () throws(ProxyError) -> (Data, ImageFormat) in
                // A render that runs alone may split its work across both cores (rows, or the
                // stages of ``PipelinedPlanarRender``); beside other renders, or other results
                // being produced (their loads come back to render soon), it keeps to its thread,
                // which costs less CPU.
                let alone = gate.load.running <= 1 && self.producesAlone
                let keep = alone ? self.keepBesideTheAnswer(key: key, validator: validator, kept: keptBesideTheAnswer) : nil
                let outcome = TransformThreads.$limit.withValue(alone ? nil : 1) {
                    Result { () throws(ProxyError) -> (Data, ImageFormat) in
                        try Self.render(
                            data, spec: spec, choice: choice, quality: quality, coders: coders, encodable: encodable, limits: limits, afterEncode: keep)
                    }
                }
                return try outcome.get()
            }
            let sourceTag = await sourceDigest
            let kept = keptBesideTheAnswer.withLock { $0 }
            let rendered = kept ?? Rendered(
                data: encoded, format: format, etag: Self.etag(source: sourceTag ?? Data(validator?.utf8 ?? "".utf8), key: key, format: format))
            results.set(rendered, forKey: key)
            if kept != nil {
                // The pipeline's second thread keeps it, on the other core, while this answers.
            } else if producesAlone {
                // Alone, the result reaches the disk after the answer, on a core with nothing
                // else to do; memory has it meanwhile.
                pendingStores.withLock { $0 += 1 }
                Task {
                    await self.store(rendered, key: key)
                    self.pendingStores.withLock { $0 -= 1 }
                }
            } else {
                // Beside other work it is kept before the answer, on this task: a task of its own
                // cost about as much CPU as the write (its start and a thread's wake-up); cold
                // path, same-session A/B of 6 rounds: 0.94x the time at 8 parallel, 0.97x at 64.
                await store(rendered, key: key)
            }
            return .success((rendered, loaded.from))
        } catch {
            return .failure(error)
        }
    }

    /// For a render alone whose ETag is known before it runs (the origin sent a strong
    /// validator): the result reaches the disk from the pipeline's second thread once encoded,
    /// beside the answer instead of after it. A task started after the render was woken on the
    /// answering thread's core (the scheduler here keeps a woken thread on its waker's core) and
    /// held back the event loop's write of the answer by its own 40 µs. The result it keeps (its
    /// ETag made there, once) lands in `kept` for the answer.
    func keepBesideTheAnswer(key: String, validator: String?, kept: Locked<Rendered?>) -> PlanarRender.AfterEncode? {
        guard let validator, resultDisk != nil else { return nil }
        let maxBytes = configuration.maxOutputBytes
        return { data in
            guard data.count <= maxBytes else { return nil }
            let rendered = Rendered(data: data, format: .jpeg, etag: Self.etag(source: Data(validator.utf8), key: key, format: .jpeg))
            kept.withLock { $0 = rendered }
            self.pendingStores.withLock { $0 += 1 }
            return { decodeSucceeded in
                if decodeSucceeded { self.storeNow(rendered, key: key) }
                self.pendingStores.withLock { $0 -= 1 }
            }
        }
    }

    /// Whether one result at most is being produced (the caller's own): nothing else wants the
    /// other core, so a render may use it and a store may wait until after the answer.
    var producesAlone: Bool { inflight.withLock { $0.count } <= 1 }

    /// The largest still JPEG or PNG (pixels in its header) rendered on the request's own thread:
    /// a few milliseconds at most.
    static let inlineRenderPixels = 1 << 20

    /// What a result is kept under: the source, the normalised spec's key, the format choice, the
    /// quality.
    static func resultKey(source: URL, specKey: String?, choice: OutputChoice, quality: Int) -> String {
        "\(source.absoluteString)\n\(specKey ?? "")\n\(choice.keyPart)\nq\(quality)"
    }

    /// The spec `text` parses to, and its key (see ``specs``).
    private func parsedSpec(_ text: String) throws(ProxyError) -> (spec: TransformSpec, key: String) {
        if let known = specs.withLock({ $0[text] }) { return known }
        let spec: TransformSpec
        do throws(TransformSpecError) {
            spec = try TransformSpec(parsing: text)  // threads: see produce(…)
        } catch {
            throw ProxyError.invalidSpec(error.description)
        }
        let parsed = (spec: spec, key: spec.key)
        specs.withLock { specs in
            if specs.count >= Self.specLimit { specs.removeAll(keepingCapacity: true) }
            specs[text] = parsed
        }
        return parsed
    }

    /// Decodes, orients, transforms and encodes: the result's bytes and format, within the output
    /// byte limit. Runs on a render thread (or the request's, for a small source). An animated GIF
    /// or WebP source stays animated (every frame transformed) when the output format can carry it
    /// and it has at most ``ProxyConfiguration/maxAnimationFrames`` frames; otherwise its first
    /// frame is served as a still.
    static func render(
        _ data: Data, spec: TransformSpec?, choice: OutputChoice, quality: Int,
        coders: CoderRegistry, encodable: Set<ImageFormat>, limits: ProxyConfiguration, afterEncode: PlanarRender.AfterEncode? = nil
    ) throws(ProxyError) -> (Data, ImageFormat) {
        do throws(ImageKernelError) {
            let (encoded, format) = try encodedResult(
                data, spec: spec, choice: choice, quality: quality, coders: coders, encodable: encodable, limits: limits, afterEncode: afterEncode)
            guard encoded.count <= limits.maxOutputBytes else {
                throw ImageKernelError(stage: .encode, code: .tooLarge, message: "the result is \(encoded.count) bytes, more than \(limits.maxOutputBytes)")
            }
            return (encoded, format)
        } catch {
            throw ProxyError(error)
        }
    }

    /// The result's bytes and format: on the Y′CbCr planes for a JPEG-to-JPEG resize
    /// (``PlanarRender``), else decoded, transformed (every frame of a kept animation) and encoded.
    private static func encodedResult(
        _ data: Data, spec: TransformSpec?, choice: OutputChoice, quality: Int,
        coders: CoderRegistry, encodable: Set<ImageFormat>, limits: ProxyConfiguration, afterEncode: PlanarRender.AfterEncode?
    ) throws(ImageKernelError) -> (Data, ImageFormat) {
        let sourceFormat = ImageFormat.sniff(data)
        if sourceFormat == .jpeg, let resize = PlanarRender.resize(of: spec),
           choice.resolve(sourceFormat: .jpeg, animated: false, hasAlpha: false, encodable: encodable) == .jpeg,
           ColorPolicy.planesNeedNoColor(data, limits: limits),
           let encoded = try PlanarRender.render(data, resize: resize, quality: quality, limits: limits, afterEncode: afterEncode)
        {
            return (encoded, .jpeg)
        }
        // After geometric steps the conversion meets the result's pixels only (as libvips'
        // thumbnail converts after shrinking); before any step that mixes in colours of its own.
        let convertsAfter = ColorPolicy.convertsAfter(spec)
        let source = try decode(data, sourceFormat: sourceFormat, spec: spec, choice: choice, coders: coders, encodable: encodable, limits: limits)
        let decoded = convertsAfter ? source : ColorPolicy.apply(source, limits: limits)
        let animated = decoded.isAnimated
        var image = try transform(decoded, spec: spec, limits: limits)
        if animated {
            // Every frame comes out at the first one's size: the whole animation must fit the
            // output limit, checked before the other frames are transformed.
            let total = decoded.frameCount * image.width * image.height
            guard total <= limits.maxOutputPixels else {
                throw ImageKernelError(
                    stage: .transform, code: .tooLarge,
                    message: "the result would be \(decoded.frameCount) frames of \(image.width)x\(image.height), more than \(limits.maxOutputPixels) pixels in all")
            }
            // `frames` are the frames after the first; the image itself is frame 0.
            image.frames = try decoded.frames.map { frame throws(ImageKernelError) in
                ImageFrame(image: try transform(frame.image, spec: spec, limits: limits), duration: frame.duration)
            }
            image.duration = decoded.duration
            image.loopCount = decoded.loopCount
        }
        let format = choice.resolve(sourceFormat: sourceFormat, animated: animated, hasAlpha: image.pixelFormat.hasAlpha, encodable: encodable)
        if !OutputChoice.animatable.contains(format) { image.frames = [] }
        if convertsAfter { image = ColorPolicy.apply(image, limits: limits) }
        return (try coders.encode(image, as: format, options: EncodeOptions(quality: Double(quality) / 100)), format)
    }

    /// The source's pixels: every frame of an animation the result may keep (within the frame
    /// budget, else the first frame only), and for a still a decode no larger than the spec's
    /// resize needs (shrink on load: a large JPEG decodes at 1/2, 1/4 or 1/8 scale).
    private static func decode(
        _ data: Data, sourceFormat: ImageFormat, spec: TransformSpec?, choice: OutputChoice, coders: CoderRegistry, encodable: Set<ImageFormat>,
        limits: ProxyConfiguration
    ) throws(ImageKernelError) -> Image {
        var options = DecodeOptions(pixelLimit: limits.maxSourcePixels, firstFrameOnly: true, shrinkOnLoad: spec?.shrinkOnLoad)
        options.colorConverter = ColorPolicy.converter  // CMYK with a profile becomes RGB through it
        if limits.maxAnimationFrames > 1, OutputChoice.animatable.contains(sourceFormat), choice.mayAnimate(sourceFormat, encodable: encodable) {
            var animation = options
            animation.firstFrameOnly = false
            animation.maxFrameCount = limits.maxAnimationFrames
            animation.animationPixelLimit = limits.maxSourcePixels
            // Over the frame budget (or a broken later frame): the first frame, as a still.
            if let image = try? coders.decode(data, options: animation) { return image }
        }
        return try coders.decode(data, options: options)
    }

    /// Orients and transforms one image (or frame), within the output pixel limit.
    private static func transform(_ decoded: Image, spec: TransformSpec?, limits: ProxyConfiguration) throws(ImageKernelError) -> Image {
        var image = try OrientTransformer().transform(decoded)
        if let spec { image = try spec.transform(image) }
        try limits.checkOutput(width: image.width, height: image.height)
        return image
    }

    /// A strong validator of the result: a digest of what identifies the source's bytes
    /// (`source`: the origin's strong `ETag` with the URL it is for, else the SHA-256 of the bytes)
    /// and of what was done to them.
    static func etag(source: Data, key: String, format: ImageFormat) -> String {
        "\"" + Digest.base64URL(of: [source, Data("\n\(key)\n\(format.rawValue)".utf8)]).prefix(27) + "\""
    }
}
