import Foundation
import ImageKernel
import Transformers

extension ImageProxyService {
    /// Answers an imgproxy URL (``ProxyConfiguration/compat``): parsed and authorised by
    /// ``ImgproxyPath``, rendered by ``ImgproxyTransformer`` through the same cache, coalescing
    /// and render path as the native grammar; errors answer as imgproxy does (status, plain text).
    func respondImgproxy(
        path: String, accept: String?, ifNoneMatch: String?, settings: ImgproxySettings, hints: ImgproxyClientHints?, routeKey: String
    ) async -> ProxyResponse {
        do throws(ProxyError) {
            let parsed = try ImgproxyPath.parse(path, settings: settings, hints: hints)
            var options = parsed.options
            if settings.maxResultDimension > 0, options.maxResultDimension == 0 { options.maxResultDimension = settings.maxResultDimension }
            if options.enforceThumbnail == nil, settings.enforceThumbnail { options.enforceThumbnail = true }
            // imgproxy's IMGPROXY_WATERMARK_OPACITY scales every URL's; its
            // IMGPROXY_SKIP_PROCESSING_FORMATS add to the URL's.
            options.watermarkOpacity *= settings.watermarkOpacity
            options.skipProcessing += settings.skipProcessingFormats.filter { !options.skipProcessing.contains($0) }
            if options.preserveHDR == nil, settings.preserveHDR { options.preserveHDR = true }
            do throws(ProxyError) {
                try checkSource(parsed.source)
            } catch {
                throw .imgproxySource("Source URL is not allowed: \(parsed.source.absoluteString)")
            }
            let choice = try imgproxyChoice(options, accept: accept, settings: settings)
            var output = ProxyRequest.Output()
            if options.quality > 0 {
                output.quality = options.quality
            } else {
                // `format_quality` by the format the render settles on (imgproxy's order: the
                // URL's `quality`, then its `format_quality`, then the service's).
                output.formatQuality = options.formatQuality.filter { $0.value > 0 }
            }
            if options.maxBytes > 0 { output.maxBytes = options.maxBytes }
            output.filename = options.filename
            output.attachment = options.returnAttachment
            output.metadata = metadataPolicy(options)
            output.sourceLimits = options.sourceLimits
            if let strip = options.stripColorProfile, strip == configuration.keepsColorProfile { output.keepsColorProfile = !strip }
            let mark = watermark.withLock { $0 }
            let transformer = ImgproxyTransformer(options: options, watermark: mark?.image)
            var specKey = transformer.key
            if let mark, options.watermarkOpacity > 0 { specKey += "\nwatermark:" + mark.digest }
            if let buster = options.cacheBuster { specKey += "\ncb:" + buster }
            if let original = try await passThrough(parsed.source, options: options) {
                let route = Route(key: "", negotiated: false, disposition: ContentDisposition(output, source: parsed.source))
                return success(original, cacheType: "source", route: route, ifNoneMatch: ifNoneMatch)
            }
            let key = resultKey(source: parsed.source, specKey: specKey, choice: choice, output: output)
            let negotiated = options.format == nil || settings.enforceWebP || settings.enforceAVIF || settings.enforceJXL
            var route = Route(key: key, negotiated: negotiated, disposition: ContentDisposition(output, source: parsed.source))
            route.readsClientHints = settings.enablesClientHints
            if options.expires == nil { remember(route: routeKey, route) }
            let spec = TransformSpec(steps: [transformer])
            let (rendered, cacheType) = try await render(key: key, source: parsed.source, spec: spec, choice: choice, output: output)
            return success(rendered, cacheType: cacheType, route: route, ifNoneMatch: ifNoneMatch)
        } catch {
            return .error(error.imgproxyShaped)
        }
    }

    /// The metadata policy `strip_metadata` and `keep_copyright` ask for, when it differs from the
    /// service's (`IMGPROXY_STRIP_METADATA`, `IMGPROXY_KEEP_COPYRIGHT`); nil otherwise.
    private func metadataPolicy(_ options: ImgproxyOptions) -> MetadataPolicy? {
        guard options.stripMetadata != nil || options.keepCopyright != nil else { return nil }
        let strips = options.stripMetadata ?? !configuration.keepsAllMetadata
        let keepsCopyright = options.keepCopyright ?? configuration.keepsCopyright
        let policy: MetadataPolicy = strips ? (keepsCopyright ? .copyright : .none) : .all
        return policy == configuration.metadataPolicy ? nil : policy
    }

    /// imgproxy's output format (its `determineOutputFormat`): `enforce_*` formats the client
    /// accepts win (JPEG XL, then AVIF, then WebP), then the format the URL names, then the
    /// `auto_*` formats the client accepts in the same order, then imgproxy's preferred formats
    /// (the source's when it is one, else PNG with alpha, JPEG without). JPEG XL and AVIF are
    /// skipped for an animated result, settled at render time (``OutputChoice/unlessAnimated(_:otherwise:)``).
    private func imgproxyChoice(_ options: ImgproxyOptions, accept: String?, settings: ImgproxySettings) throws(ProxyError) -> OutputChoice {
        let accepted = accept.map(OutputChoice.acceptedMediaTypes) ?? []
        func offered(_ format: ImageFormat, _ on: Bool) -> Bool { on && encodable.contains(format) && accepted.contains(format.mediaType) }
        let named = options.format
        // With a format in the URL only `enforce_*` overrides it; without, `auto_*` too.
        let (jxl, avif, webp) = named == nil
            ? (settings.autoJXL || settings.enforceJXL, settings.autoAVIF || settings.enforceAVIF, settings.autoWebP || settings.enforceWebP)
            : (settings.enforceJXL, settings.enforceAVIF, settings.enforceWebP)
        var choice: OutputChoice
        if offered(.webp, webp) {
            choice = .format(.webp)
        } else if let named {
            guard encodable.contains(named) else { throw .imgproxyCantSave("Resulting image format is not supported: \(named.rawValue)") }
            choice = .format(named)
        } else {
            choice = .preferred(settings.preferredFormats)
        }
        if offered(.avif, avif) { choice = .unlessAnimated(.avif, otherwise: choice) }
        if offered(.jxl, jxl) { choice = .unlessAnimated(.jxl, otherwise: choice) }
        return choice
    }
}
