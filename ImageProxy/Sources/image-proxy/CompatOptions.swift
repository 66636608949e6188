import ArgumentParser
import Foundation
import ImageProxyCore

/// The grammar a service reads URLs in.
enum CompatMode: String, ExpressibleByArgument, CaseIterable {
    /// The native grammar (transform spec steps).
    case native
    /// imgproxy's URLs, options and answers.
    case imgproxy
}

/// The flags of imgproxy's compatibility mode (`--compat imgproxy`); the names are those the
/// `IMGPROXY_*` variables map onto.
struct CompatOptions: ParsableArguments {
    @Option(help: "The URL grammar, and the environment read besides IMAGE_PROXY_*: native (transform spec steps), or imgproxy (imgproxy's URLs, options and error answers, and its IMGPROXY_* settings).")
    var compat: CompatMode = .native

    @Option(help: "imgproxy mode: what separates an option's name and arguments (IMGPROXY_ARGUMENTS_SEPARATOR).")
    var argumentsSeparator: String = ":"

    @Option(help: "imgproxy mode: prepended to source URLs that do not start with it (IMGPROXY_BASE_URL).")
    var baseUrl: String = ""

    @Option(help: "imgproxy mode: an option URLs may use; repeatable; none: all (IMGPROXY_ALLOWED_PROCESSING_OPTIONS).")
    var allowedProcessingOption: [String] = []

    @Flag(help: "imgproxy mode: let URLs carry the security options max_result_dimension, max_src_resolution, … (IMGPROXY_ALLOW_SECURITY_OPTIONS).")
    var allowSecurityOptions = false

    @Option(help: "imgproxy mode: the result's longest side; 0: none (IMGPROXY_MAX_RESULT_DIMENSION).")
    var maxResultDimension: Int = 0

    @Option(help: "imgproxy mode: bytes of the HMAC a signature carries, 1–32 (IMGPROXY_SIGNATURE_SIZE).")
    var signatureSize: Int = 32

    @Option(help: "imgproxy mode: a signature accepted as it is; repeatable (IMGPROXY_TRUSTED_SIGNATURES).")
    var trustedSignature: [String] = []

    @Flag(help: "imgproxy mode: answer WebP to clients that accept it when the URL names no format (IMGPROXY_AUTO_WEBP).")
    var autoWebp = false

    @Flag(help: "imgproxy mode: answer AVIF to clients that accept it when the URL names no format (IMGPROXY_AUTO_AVIF).")
    var autoAvif = false

    @Flag(help: "imgproxy mode: answer WebP to clients that accept it, whatever the URL names (IMGPROXY_ENFORCE_WEBP).")
    var enforceWebp = false

    @Flag(help: "imgproxy mode: answer AVIF to clients that accept it, whatever the URL names (IMGPROXY_ENFORCE_AVIF).")
    var enforceAvif = false

    @Flag(help: "imgproxy mode: answer JPEG XL to clients that accept it when the URL names no format, before AVIF and WebP (IMGPROXY_AUTO_JXL).")
    var autoJxl = false

    @Flag(help: "imgproxy mode: answer JPEG XL to clients that accept it, whatever the URL names (IMGPROXY_ENFORCE_JXL).")
    var enforceJxl = false

    @Flag(help: "imgproxy mode: start a URL's dpr and width from the client hints Sec-CH-DPR/DPR and Sec-CH-Width/Width; answers then Vary on them (IMGPROXY_ENABLE_CLIENT_HINTS).")
    var enableClientHints = false

    @Option(help: "imgproxy mode: PATTERN=REPLACEMENT, rewriting a source URL's prefix (`*` matches up to a `/`, `$1`/`${1}` in the replacement); repeatable, applied in order (IMGPROXY_URL_REPLACEMENTS).")
    var urlReplacement: [String] = []

    @Flag(help: "imgproxy mode: the last /-part of a base64 source is a file name, ignored (IMGPROXY_BASE64_URL_INCLUDES_FILENAME).")
    var base64UrlIncludesFilename = false

    @Flag(help: "imgproxy mode: decode a HEIF or AVIF source's embedded thumbnail, when it has one, instead of its image (IMGPROXY_ENFORCE_THUMBNAIL); a URL's enforce_thumbnail wins.")
    var enforceThumbnail = false

    @Flag(help: "imgproxy mode: keep 16 bits per sample where the source has more than 8 and the result is PNG, TIFF or JPEG XL (IMGPROXY_PRESERVE_HDR); a URL's preserve_hdr wins.")
    var preserveHdr = false

    @Flag(inversion: .prefixedNo, help: "Strip EXIF, XMP and IPTC from results (default; --keep-copyright keeps copyright); --no-strip-metadata keeps all of it, GPS included (IMGPROXY_STRIP_METADATA). Both modes.")
    var stripMetadata = true

    func validate() throws {
        guard (1...32).contains(signatureSize) else { throw ValidationError("--signature-size is 1…32") }
        guard !argumentsSeparator.isEmpty else { throw ValidationError("--arguments-separator must not be empty") }
        guard maxResultDimension >= 0 else { throw ValidationError("--max-result-dimension must not be negative") }
    }

    /// The settings of imgproxy mode, or nil in the native one; `presets` are `NAME=OPTIONS` in
    /// imgproxy's grammar there.
    func settings(signers: [ProxySigner], presets: [String], onlyPresets: Bool) throws -> ImgproxySettings? {
        guard compat == .imgproxy else { return nil }
        var settings = ImgproxySettings()
        settings.signers = signers
        settings.signatureSize = signatureSize
        settings.trustedSignatures = Set(trustedSignature)
        settings.argumentsSeparator = argumentsSeparator
        settings.baseURL = baseUrl
        settings.allowedProcessingOptions = allowedProcessingOption
        settings.allowsSecurityOptions = allowSecurityOptions
        settings.maxResultDimension = maxResultDimension
        settings.onlyPresets = onlyPresets
        settings.autoWebP = autoWebp
        settings.autoAVIF = autoAvif
        settings.enforceWebP = enforceWebp
        settings.enforceAVIF = enforceAvif
        settings.enforceThumbnail = enforceThumbnail
        settings.preserveHDR = preserveHdr
        settings.autoJXL = autoJxl
        settings.enforceJXL = enforceJxl
        settings.enablesClientHints = enableClientHints
        settings.base64URLIncludesFilename = base64UrlIncludesFilename
        do throws(ProxyError) {
            settings.urlReplacements = try urlReplacement.map { definition throws(ProxyError) in try ImgproxyURLReplacement(definition: definition) }
            try settings.addPresets(presets)
        } catch {
            throw ValidationError(error.message)
        }
        return settings
    }
}
