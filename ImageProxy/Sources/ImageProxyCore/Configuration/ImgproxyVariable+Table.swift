import Configuration
import Foundation

extension ImgproxyVariable {
    /// Every `IMGPROXY_*` setting `--compat imgproxy` reads, in the order of imgproxy's
    /// configuration page. Earlier entries win when two set the same flag (`WATERMARK_PATH` over
    /// `WATERMARK_URL`, `AUTO_WEBP` over its old name `ENABLE_WEBP_DETECTION`).
    public static let table: [ImgproxyVariable] = [
        // Signatures.
        keysAndSalts,
        .int("SIGNATURE_SIZE", "signature-size", 1...32),
        .list("TRUSTED_SIGNATURES", "trusted-signature"),
        // Server.
        bind,
        .int("WORKERS", "max-concurrent-transforms", 1...4096),
        .int("CONCURRENCY", "max-concurrent-transforms", 1...4096),
        .int("REQUESTS_QUEUE_SIZE", "max-queued-transforms", 1...1_000_000, zeroMeans: "no limit"),
        seconds("DOWNLOAD_TIMEOUT", "source-timeout"),
        .int("TTL", "max-age", 0...Int(Int32.max)),
        logLevel,
        .refused("PATH_PREFIX", "image-proxy serves paths from the root; put a proxy that strips the prefix in front"),
        .refused("SECRET", "image-proxy has no Authorization check; keep it behind a gateway that checks the bearer token"),
        .unsupported("READ_REQUEST_TIMEOUT", "the service sets no limit on reading a request (the source limit is IMGPROXY_DOWNLOAD_TIMEOUT)"),
        .unsupported("READ_TIMEOUT", "the service sets no limit on reading a request"),
        .unsupported("TIMEOUT", "the service has no limit on a whole request; sources are bounded by IMGPROXY_DOWNLOAD_TIMEOUT"),
        .unsupported("USE_ETAG", "ETags are always sent and If-None-Match always answered", harmless: "true"),
        .unsupported("CACHE_CONTROL_PASSTHROUGH", "Cache-Control is max-age=IMGPROXY_TTL", harmless: "false"),
        // Sources.
        allowedSources,
        .string("BASE_URL", "base-url"),
        urlReplacements,
        .bool("BASE64_URL_INCLUDES_FILENAME", "base64-url-includes-filename"),
        .unsupported("ALLOW_LOOPBACK_SOURCE_ADDRESSES", "name the address in IMGPROXY_ALLOWED_SOURCES (an allowed prefix naming an internal address allows it)", harmless: "false"),
        .unsupported("ALLOW_PRIVATE_SOURCE_ADDRESSES", "name the address in IMGPROXY_ALLOWED_SOURCES (an allowed prefix naming an internal address allows it)", harmless: "false"),
        .unsupported("ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", "name the address in IMGPROXY_ALLOWED_SOURCES", harmless: "false"),
        .string("LOCAL_FILESYSTEM_ROOT", "local-root"),
        megapixels,
        sourceBytes,
        .int("MAX_ANIMATION_FRAMES", "max-animation-frames", 1...100_000),
        frameMegapixels,
        // Amazon S3 sources: off unless IMGPROXY_USE_S3 is true, as in imgproxy.
        useS3,
        s3AllowedBuckets,
        .unsupported("S3_DENIED_BUCKETS", "buckets are allowed by name only (IMGPROXY_S3_ALLOWED_BUCKETS): leave the denied ones out"),
        .string("S3_ENDPOINT", "s3-endpoint"),
        .string("S3_REGION", "s3-region"),
        .inverted("S3_ENDPOINT_USE_PATH_STYLE", "s3-virtual-host"),
        // The URL.
        .string("ARGUMENTS_SEPARATOR", "arguments-separator"),
        .list("PRESETS", "preset"),
        .string("PRESETS_PATH", "presets-file"),
        .bool("ONLY_PRESETS", "only-presets"),
        .list("ALLOWED_PROCESSING_OPTIONS", "allowed-processing-option"),
        .bool("ALLOW_SECURITY_OPTIONS", "allow-security-options"),
        .int("MAX_RESULT_DIMENSION", "max-result-dimension", 1...1_000_000, zeroMeans: "no limit"),
        // Output.
        .int("QUALITY", "quality", 1...100),
        formatQuality,
        .bool("AUTO_WEBP", "auto-webp"),
        .bool("ENABLE_WEBP_DETECTION", "auto-webp"),
        .bool("AUTO_AVIF", "auto-avif"),
        .bool("ENABLE_AVIF_DETECTION", "auto-avif"),
        .bool("ENFORCE_WEBP", "enforce-webp"),
        .bool("ENFORCE_THUMBNAIL", "enforce-thumbnail"),
        .bool("ENFORCE_AVIF", "enforce-avif"),
        .bool("PRESERVE_HDR", "preserve-hdr"),
        .bool("AUTO_JXL", "auto-jxl"),
        .bool("ENFORCE_JXL", "enforce-jxl"),
        .bool("ENABLE_CLIENT_HINTS", "enable-client-hints"),
        .bool("JPEG_PROGRESSIVE", "jpeg-progressive"),
        .bool("PNG_INTERLACED", "png-interlaced"),
        .bool("STRIP_METADATA", "strip-metadata"),
        .bool("KEEP_COPYRIGHT", "keep-copyright"),
        .inverted("STRIP_COLOR_PROFILE", "keep-color-profile"),
        .string("WATERMARK_PATH", "watermark"),
        .string("WATERMARK_URL", "watermark"),
        .unsupported("WATERMARK_DATA", "write the image to a file and give IMGPROXY_WATERMARK_PATH"),
    ]

    /// `IMGPROXY_KEY` and `IMGPROXY_SALT`: hex, several pairs comma-separated, paired by position.
    static let keysAndSalts = Self(name: "KEY", flags: ["key", "salt"], summary: "`--key`, with `IMGPROXY_SALT` as `--salt`, once per pair") { reader, key in
        let keys = try items(reader, key, isSecret: true)
        let saltKey = ConfigKey(["imgproxy", "salt"])
        let salts = reader.string(forKey: saltKey, isSecret: true) == nil ? [] : try items(reader, saltKey, isSecret: true)
        guard keys.count == salts.count else {
            throw ImgproxyValueError("\(keys.count) keys and \(salts.count) salts (IMGPROXY_SALT): they pair up one for one")
        }
        return .flags(keys.map { FlagValue("key", $0) } + salts.map { FlagValue("salt", $0) })
    }

    /// `IMGPROXY_BIND`: `:8080`, `host:port`, `[::1]:8080`; an empty host is every address.
    static let bind = Self(name: "BIND", flags: ["host", "port"], summary: "`--host` and `--port` (`:8080` is every address)") { reader, key in
        let text = try reader.requiredString(forKey: key)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ImgproxyValueError("\(text) is not [host]:port (a Unix socket is not supported)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return .flags([FlagValue("host", host.isEmpty ? "0.0.0.0" : host), FlagValue("port", "\(port)")])
    }

    static func seconds(_ name: String, _ flag: String) -> Self {
        Self(name: name, flags: [flag], summary: "`--\(flag)` (seconds)") { reader, key in
            let value = try reader.requiredDouble(forKey: key)
            guard value > 0, value <= 86400 else { throw ImgproxyValueError("\(value) seconds is outside (0, 86400]") }
            return .flags([FlagValue(flag, "\(value)")])
        }
    }

    static let logLevel = Self(name: "LOG_LEVEL", flags: ["log-level"], summary: "`--log-level` (`warn` is `warning`)") { reader, key in
        let level = try reader.requiredString(forKey: key).lowercased()
        let levels = ["debug": "debug", "info": "info", "warn": "warning", "warning": "warning", "error": "error", "fatal": "critical"]
        guard let ours = levels[level] else { throw ImgproxyValueError("\(level) is not debug, info, warn, error or fatal") }
        return .flags([FlagValue("log-level", ours)])
    }

    /// `IMGPROXY_ALLOWED_SOURCES`: URL prefixes; imgproxy's `*` wildcards are refused (list each
    /// origin), `local://` entries are left to `IMGPROXY_LOCAL_FILESYSTEM_ROOT`, `s3://` entries
    /// to `IMGPROXY_USE_S3` (ignored unless it is true).
    static let allowedSources = Self(name: "ALLOWED_SOURCES", flags: ["allow-origin"], summary: "`--allow-origin`, once per prefix (no `*` wildcards)") { reader, key in
        let sources = try items(reader, key)
        if let wildcard = sources.first(where: { $0.contains("*") }) {
            throw ImgproxyValueError("\(wildcard): wildcards are not supported, list each origin")
        }
        let s3On = usesS3(reader)
        return .flags(sources.filter { source in
            let lowered = source.lowercased()
            return !lowered.hasPrefix("local://") && (s3On || !lowered.hasPrefix("s3://"))
        }.map { FlagValue("allow-origin", $0) })
    }

    /// `IMGPROXY_URL_REPLACEMENTS`: `PATTERN=REPLACEMENT` pairs separated by `;` (not `,`: a
    /// replacement may hold commas), each checked as the flag checks it.
    static let urlReplacements = Self(name: "URL_REPLACEMENTS", flags: ["url-replacement"], summary: "`--url-replacement PATTERN=REPLACEMENT`, once per `;`-separated pair") { reader, key in
        let text = try reader.requiredString(forKey: key)
        return .flags(try text.split(separator: ";").map { pair in
            do {
                _ = try ImgproxyURLReplacement(definition: String(pair))
            } catch {
                throw ImgproxyValueError("\(pair) is not PATTERN=REPLACEMENT")
            }
            return FlagValue("url-replacement", String(pair))
        })
    }

    /// `IMGPROXY_MAX_SRC_RESOLUTION`: megapixels, possibly fractional; rounded down (never a
    /// looser limit), at least 1.
    static let megapixels = Self(name: "MAX_SRC_RESOLUTION", flags: ["max-source-megapixels"], summary: "`--max-source-megapixels` (rounded down, at least 1)") { reader, key in
        let value = try reader.requiredDouble(forKey: key)
        guard value > 0, value <= 1_000_000 else { throw ImgproxyValueError("\(value) megapixels is outside (0, 1000000]") }
        return .flags([FlagValue("max-source-megapixels", "\(max(1, Int(value.rounded(.down))))")])
    }

    /// `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`: megapixels of each animation frame, possibly
    /// fractional; 0 (imgproxy's default) checks all frames together against the source resolution.
    static let frameMegapixels = Self(
        name: "MAX_ANIMATION_FRAME_RESOLUTION", flags: ["max-animation-frame-megapixels"],
        summary: "`--max-animation-frame-megapixels` (0: all frames together against the source resolution)"
    ) { reader, key in
        let value = try reader.requiredDouble(forKey: key)
        guard value >= 0, value <= 1_000_000 else { throw ImgproxyValueError("\(value) megapixels is outside [0, 1000000]") }
        return .flags([FlagValue("max-animation-frame-megapixels", "\(value)")])
    }

    /// `IMGPROXY_MAX_SRC_FILE_SIZE`: bytes, 0 for none; megabytes rounded up.
    static let sourceBytes = Self(name: "MAX_SRC_FILE_SIZE", flags: ["max-source-mb"], summary: "`--max-source-mb` (bytes, rounded up to MB; 0: no limit, not offered)") { reader, key in
        let bytes = try reader.requiredInt(forKey: key)
        guard bytes >= 0 else { throw ImgproxyValueError("\(bytes) bytes is negative") }
        if bytes == 0 { return .note("0 (no limit) is not offered: --max-source-mb keeps its default") }
        return .flags([FlagValue("max-source-mb", "\((bytes + (1 << 20) - 1) >> 20)")])
    }

    /// `IMGPROXY_FORMAT_QUALITY`: `jpeg=80,webp=70`.
    static let formatQuality = Self(name: "FORMAT_QUALITY", flags: ["quality"], summary: "`--quality FORMAT=Q`, once per format") { reader, key in
        .flags(try items(reader, key).map { item in
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let q = Int(parts[1]), (1...100).contains(q), !parts[0].isEmpty else {
                throw ImgproxyValueError("\(item) is not FORMAT=QUALITY with a quality of 1…100")
            }
            return FlagValue("quality", "\(parts[0].lowercased())=\(q)")
        })
    }

    // imgproxy's S3 settings: `s3://` sources are off unless `IMGPROXY_USE_S3` is true; then the
    // buckets of `IMGPROXY_S3_ALLOWED_BUCKETS` (exact names) and the `s3://` entries of
    // `IMGPROXY_ALLOWED_SOURCES` are allowed. Every bucket, imgproxy's default without a list, is
    // not offered: the service serves what an allow-list names.

    static let useS3Key = ConfigKey(["imgproxy", "use-s3"])
    static let s3AllowedBucketsKey = ConfigKey(["imgproxy", "s3-allowed-buckets"])

    /// Whether `IMGPROXY_USE_S3` is true.
    static func usesS3(_ reader: ConfigReader) -> Bool { reader.bool(forKey: useS3Key) ?? false }

    /// `IMGPROXY_USE_S3`: sets nothing itself; true without a bucket named anywhere is a note.
    static let useS3 = Self(
        name: "USE_S3", flags: [],
        summary: "`s3://` sources on (off, `s3://` entries of `IMGPROXY_ALLOWED_SOURCES` and `IMGPROXY_S3_ALLOWED_BUCKETS` are ignored)"
    ) { reader, key in
        guard try reader.requiredBool(forKey: key) else { return .flags([]) }
        let buckets = reader.string(forKey: s3AllowedBucketsKey) ?? ""
        let sources = reader.string(forKey: ConfigKey(["imgproxy", "allowed-sources"])) ?? ""
        if buckets.contains(where: { !$0.isWhitespace && $0 != "," }) || sources.lowercased().contains("s3://") { return .flags([]) }
        return .note("no bucket is allowed: name them in IMGPROXY_S3_ALLOWED_BUCKETS (every bucket, imgproxy's default, is not offered)")
    }

    /// `IMGPROXY_S3_ALLOWED_BUCKETS`: bucket names, each allowed exactly (`src` never allows `srcx`).
    static let s3AllowedBuckets = Self(
        name: "S3_ALLOWED_BUCKETS", flags: ["allow-origin"], summary: "`--allow-origin s3://BUCKET/`, once per bucket, with `IMGPROXY_USE_S3=true`"
    ) { reader, key in
        guard usesS3(reader) else { return .note("ignored: IMGPROXY_USE_S3 is not true") }
        let buckets = try items(reader, key)
        if let bad = buckets.first(where: { name in !name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) } }) {
            throw ImgproxyValueError("\(bad) is not a bucket name (no wildcards)")
        }
        return .flags(buckets.map { FlagValue("allow-origin", "s3://\($0)/") })
    }
}
