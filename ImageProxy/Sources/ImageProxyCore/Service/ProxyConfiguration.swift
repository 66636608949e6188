import Foundation
import ImageKernel

/// What an ``ImageProxyService`` serves and the limits it keeps.
public struct ProxyConfiguration: Sendable {
    /// URL prefixes sources must start with (`https://images.example.com/`); see ``OriginPolicy``.
    public var allowedOrigins: [String]
    /// The URL signer; nil runs without a key, accepting the signature `unsafe` only.
    public var signer: ProxySigner?
    /// Where original sources and encoded results are kept on disk; nil keeps them in memory only.
    public var cacheDirectory: URL?
    /// Bytes of encoded results kept in memory.
    public var memoryBytes: Int = 256 << 20
    /// On which use a source from the origin is kept on disk (and in the shared tier), as nginx's
    /// `proxy_cache_min_uses`: by default on its second, so a source rendered once costs no file
    /// beside its result; 1 keeps every original at once (``OriginalAdmission``).
    public var originalMinUses: Int = 2
    /// A `redis://[:password@]host:port/db` URL, or `redis+cluster://host:port,host:port` for a
    /// Redis Cluster: originals and encoded results are shared with the fleet through it, and
    /// each result is rendered once across the fleet (a lease per result; see ``ImageProxyService``).
    public var sharedCache: String?
    /// How long one wait on the shared cache may take before it counts as a miss or a failed
    /// store (``CacheRedis``'s `timeout`; default 50 ms, `--shared-cache-timeout-ms`).
    public var sharedCacheTimeout: Duration = .milliseconds(50)
    /// Largest source, in bytes (413 above).
    public var maxSourceBytes: Int64 = 32 << 20
    /// Most pixels a source may have (413 above), checked from its header before it is decoded.
    public var maxSourcePixels: Int = 60_000_000
    /// Frames of an animated GIF, WebP or JPEG XL source kept in an animated result (when the
    /// output format can carry an animation): a source with more keeps its first this many, the
    /// ones after them never decoded (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAMES`). 1 serves every
    /// animation as a still of its first frame. The frames kept over ``maxSourcePixels`` in all
    /// are refused (413; imgproxy's grammar: 422 `Invalid source image`).
    public var maxAnimationFrames: Int = 256
    /// Most pixels of each frame of an animation kept animated (a larger frame is refused as
    /// over ``maxSourcePixels`` is); 0 (the default) checks all frames kept together against
    /// ``maxSourcePixels`` instead (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`).
    public var maxAnimationFramePixels: Int = 0
    /// Most pixels a result may have (413 above).
    public var maxOutputPixels: Int = 36_000_000
    /// Largest encoded result, in bytes (413 above).
    public var maxOutputBytes: Int = 32 << 20
    /// Renders (decode, transform, encode) at once; default: one per core.
    public var maxConcurrentTransforms: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Renders that may wait for a slot; more are refused with 503.
    public var maxQueuedTransforms: Int = 128
    /// Total time a source may take, redirects included (504 after it).
    public var sourceTimeout: Duration = .seconds(10)
    /// Redirects followed, each checked against the allow-list.
    public var maxRedirects: Int = 5
    /// `Cache-Control: public, max-age=` of results, in seconds.
    public var maxAge: Int = 30 * 86400
    /// Quality when the request names none (1–100), for formats ``formatQuality`` does not name.
    public var defaultQuality: Int = 80
    /// Quality when the request names none, by format (imgproxy's `IMGPROXY_FORMAT_QUALITY`
    /// defaults: WebP 79, AVIF 63, JPEG XL 77); other formats take ``defaultQuality``.
    public var formatQuality: [ImageFormat: Int] = [.webp: 79, .avif: 63, ImageFormat(rawValue: "jxl"): 77]
    /// Write progressive JPEGs unless the request says `progressive:0`.
    public var jpegProgressive: Bool = false
    /// Write interlaced (Adam7) PNGs unless the request says `progressive:0`.
    public var pngInterlaced: Bool = false
    /// Named specs (`preset:NAME`) and the presets-only mode.
    public var presets = ProxyPresets()
    /// The directory `local:///path` sources are read under; nil refuses them.
    public var localRoot: String?
    /// A file path or http(s) URL of the image the `watermark` step places, loaded and decoded
    /// once when the service starts (``ImageProxyService/prepare()``); nil refuses the step.
    public var watermark: String?
    /// Transfers to origins at once.
    public var maxConcurrentDownloads: Int = 32
    /// Keep a source's ICC profile or CICP description with its pixels untouched. Off by default,
    /// as in imgproxy: results are converted to sRGB (lcms2) and carry no profile, which is
    /// smaller and right in every viewer, colour-managed or not. CMYK sources with a profile
    /// become RGB through it either way.
    public var keepsColorProfile: Bool = false
    /// Keep who owns and who made the image (EXIF Copyright and Artist, XMP rights and creator,
    /// IPTC copyright notice and by-line) in results. Off by default: results carry no EXIF, XMP
    /// or IPTC at all (GPS never), as imgproxy's `IMGPROXY_STRIP_METADATA`; on, imgproxy's
    /// `IMGPROXY_KEEP_COPYRIGHT`.
    public var keepsCopyright: Bool = false

    /// The object store of `s3://` sources and of the result bucket (``ProxyS3Settings``).
    public var s3 = ProxyS3Settings()

    /// imgproxy's URLs and answers instead of the native grammar (`--compat imgproxy`), read with
    /// these settings; nil (the default) serves the native grammar.
    public var compat: ImgproxySettings?

    /// Keep all of the source's EXIF, XMP and IPTC (GPS included) in results: imgproxy's
    /// `IMGPROXY_STRIP_METADATA=false` (`--no-strip-metadata`). Off by default.
    public var keepsAllMetadata: Bool = false

    /// What results carry of the source's metadata (``keepsAllMetadata``, ``keepsCopyright``).
    public var metadataPolicy: MetadataPolicy { keepsAllMetadata ? .all : keepsCopyright ? .copyright : .none }

    public init(allowedOrigins: [String]) {
        self.allowedOrigins = allowedOrigins
    }
}

extension ProxyConfiguration {
    /// Throws `tooLarge` for a result of `width` x `height` over ``maxOutputPixels``.
    func checkOutput(width: Int, height: Int) throws(ImageKernelError) {
        guard width * height <= maxOutputPixels else {
            throw ImageKernelError(stage: .transform, code: .tooLarge, message: "the result would be \(width)x\(height), more than \(maxOutputPixels) pixels")
        }
    }

    /// The quality of a `format` result the request names none for.
    func quality(for format: ImageFormat) -> Int { formatQuality[format] ?? defaultQuality }

    /// Whether a `format` result is progressive (JPEG) or interlaced (PNG) when the request does
    /// not say.
    func progressive(for format: ImageFormat) -> Bool { format == .jpeg ? jpegProgressive : format == .png ? pngInterlaced : false }

    /// What the defaults change in a result: part of every result key, so results cached under
    /// other defaults are not served.
    var outputDefaultsKey: String {
        let qualities = formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
        return "q\(defaultQuality),\(qualities);p\(jpegProgressive ? 1 : 0)\(pngInterlaced ? 1 : 0)" + (keepsAllMetadata ? ";m=all" : "")
            + (keepsCopyright && !keepsAllMetadata ? ";m=copyright" : "") + (keepsColorProfile ? ";c=keep" : "")
    }
}
