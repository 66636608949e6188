import Foundation

/// What a service in imgproxy's compatibility mode (`--compat imgproxy`) reads URLs with: the
/// settings of imgproxy's `IMGPROXY_*` variables that concern the path.
public struct ImgproxySettings: Sendable {
    /// Signers, any of which may sign a URL (`IMGPROXY_KEY`/`IMGPROXY_SALT` pairs); empty: no
    /// signature is checked (imgproxy's behaviour without a key: any signature text passes).
    public var signers: [ProxySigner] = []
    /// Bytes of the HMAC a signature carries, 1–32 (`IMGPROXY_SIGNATURE_SIZE`).
    public var signatureSize = 32
    /// Signatures accepted as they are (`IMGPROXY_TRUSTED_SIGNATURES`).
    public var trustedSignatures: Set<String> = []
    /// What separates an option's name and arguments (`IMGPROXY_ARGUMENTS_SEPARATOR`).
    public var argumentsSeparator = ":"
    /// Prepended to every source URL that does not start with it (`IMGPROXY_BASE_URL`).
    public var baseURL = ""
    /// The only options URLs may use (`IMGPROXY_ALLOWED_PROCESSING_OPTIONS`); empty: all.
    /// Presets are not checked against it, as in imgproxy.
    public var allowedProcessingOptions: [String] = []
    /// Whether URLs may carry the security options (`IMGPROXY_ALLOW_SECURITY_OPTIONS`).
    public var allowsSecurityOptions = false
    /// The result's longest side; 0 for none (`IMGPROXY_MAX_RESULT_DIMENSION`).
    public var maxResultDimension = 0
    /// Presets in imgproxy's grammar, by name (`IMGPROXY_PRESETS`); `default` applies first.
    public var presets: [String: [(String, [String])]] = [:]
    /// Whether paths are only preset names (`IMGPROXY_ONLY_PRESETS`).
    public var onlyPresets = false
    /// Answer WebP or AVIF to clients whose `Accept` lists it, when the URL names no format
    /// (`IMGPROXY_AUTO_WEBP`, `IMGPROXY_AUTO_AVIF`).
    public var autoWebP = false
    public var autoAVIF = false
    /// Answer WebP or AVIF to such clients even when the URL names a format
    /// (`IMGPROXY_ENFORCE_WEBP`, `IMGPROXY_ENFORCE_AVIF`).
    public var enforceWebP = false
    public var enforceAVIF = false
    /// Answer JPEG XL to clients whose `Accept` lists it, when the URL names no format
    /// (`IMGPROXY_AUTO_JXL`), or even when it names one (`IMGPROXY_ENFORCE_JXL`); JPEG XL comes
    /// before AVIF and WebP, as in imgproxy.
    public var autoJXL = false
    public var enforceJXL = false
    /// Read the client hints `Sec-CH-DPR`/`DPR` and `Sec-CH-Width`/`Width` as the `dpr` and
    /// `width` a URL starts from (`IMGPROXY_ENABLE_CLIENT_HINTS`); see ``ImgproxyClientHints``.
    public var enablesClientHints = false
    /// Rewrites of source URL prefixes, applied in order before ``baseURL``
    /// (`IMGPROXY_URL_REPLACEMENTS`).
    public var urlReplacements: [ImgproxyURLReplacement] = []
    /// Whether the last `/` part of a base64 source is a file name to ignore
    /// (`IMGPROXY_BASE64_URL_INCLUDES_FILENAME`): `/{base64}.png/puppy.jpg`.
    public var base64URLIncludesFilename = false
    /// Decode a HEIF or AVIF source's embedded thumbnail, when it has one, instead of its image,
    /// unless the URL's `enforce_thumbnail` says otherwise (`IMGPROXY_ENFORCE_THUMBNAIL`).
    public var enforceThumbnail = false
    /// Keep more than 8 bits per sample where the source has them and the result's format can
    /// carry them, unless the URL's `preserve_hdr` says otherwise (`IMGPROXY_PRESERVE_HDR`).
    public var preserveHDR = false

    public init() {}

    /// Reads presets `NAME=OPTIONS` (imgproxy's grammar, options separated by `/`).
    /// - Throws: ``ProxyError`` 500 `invalid_configuration` for a definition without a name or options.
    public mutating func addPresets(_ definitions: [String]) throws(ProxyError) {
        for definition in definitions {
            let parts = definition.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ProxyError(status: 500, code: "invalid_configuration", message: "invalid preset \(definition): expected NAME=OPTIONS")
            }
            var options: [(String, [String])] = []
            for segment in parts[1].split(separator: "/") {
                let args = segment.components(separatedBy: argumentsSeparator)
                guard args.count > 1 else {
                    throw ProxyError(status: 500, code: "invalid_configuration", message: "invalid preset \(definition): \(segment) is not an option")
                }
                options.append((args[0], Array(args.dropFirst())))
            }
            presets[parts[0]] = options
        }
    }
}
