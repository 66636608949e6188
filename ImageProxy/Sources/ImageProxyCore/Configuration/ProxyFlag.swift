/// A command-line flag of `image-proxy`, as the environment can give it: every flag can also be
/// set by an environment variable of our prefix, `IMAGE_PROXY_` and its name in upper snake case
/// (`--allow-origin` is `IMAGE_PROXY_ALLOW_ORIGIN`); the command line wins.
public struct ProxyFlag: Sendable, Hashable {
    /// How the flag takes its value.
    public enum Kind: Sendable, Hashable {
        /// `--name VALUE`.
        case value
        /// `--name N`, a whole number (checked when read from the environment).
        case integer
        /// `--name X`, a number such as seconds (checked when read from the environment).
        case number
        /// `--name V1 --name V2`: repeatable; in the environment, comma-separated.
        case list
        /// `--name` alone: in the environment a boolean (`true`/`false`, `1`/`0`, `yes`/`no`).
        case flag
    }

    /// The long name without dashes: `allow-origin`.
    public let name: String
    public let kind: Kind
    /// A ``Kind/flag`` with a `--no-` form (`--no-strip-metadata`), which a false value gives.
    public let invertible: Bool

    public init(_ name: String, _ kind: Kind, invertible: Bool = false) {
        self.name = name
        self.kind = kind
        self.invertible = invertible
    }

    /// The environment variable of our prefix: `IMAGE_PROXY_ALLOW_ORIGIN`.
    public var environmentVariable: String { Self.prefix + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// `IMAGE_PROXY_`.
    public static let prefix = "IMAGE_PROXY_"

    /// Every flag of the service. The compat flags (`compat` onwards in the second group) belong to
    /// imgproxy compatibility; the `IMGPROXY_*` mapping (``ImgproxyEnvironment``) targets them by name.
    public static let all: [ProxyFlag] = [
        ProxyFlag("port", .integer), ProxyFlag("host", .value), ProxyFlag("allow-origin", .list), ProxyFlag("cache-dir", .value),
        ProxyFlag("key", .list), ProxyFlag("salt", .list), ProxyFlag("memory-mb", .integer), ProxyFlag("original-min-uses", .integer), ProxyFlag("shared-cache", .value), ProxyFlag("shared-cache-timeout-ms", .integer),
        ProxyFlag("max-source-mb", .integer), ProxyFlag("max-source-megapixels", .integer), ProxyFlag("max-animation-frames", .integer),
        ProxyFlag("max-animation-frame-megapixels", .number),
        ProxyFlag("max-concurrent-transforms", .integer), ProxyFlag("max-queued-transforms", .integer), ProxyFlag("source-timeout", .number),
        ProxyFlag("max-age", .integer), ProxyFlag("keep-color-profile", .flag), ProxyFlag("preset", .list), ProxyFlag("presets-file", .value),
        ProxyFlag("only-presets", .flag), ProxyFlag("local-root", .value), ProxyFlag("jpeg-progressive", .flag),
        ProxyFlag("png-interlaced", .flag), ProxyFlag("quality", .list), ProxyFlag("watermark", .value), ProxyFlag("keep-copyright", .flag),
        ProxyFlag("shutdown-timeout", .number), ProxyFlag("shutdown-grace", .number), ProxyFlag("log-level", .value),
        ProxyFlag("s3-endpoint", .value), ProxyFlag("s3-region", .value), ProxyFlag("s3-virtual-host", .flag),
        ProxyFlag("result-storage", .value), ProxyFlag("event-loop-answers", .flag, invertible: true),

        ProxyFlag("compat", .value), ProxyFlag("arguments-separator", .value), ProxyFlag("base-url", .value),
        ProxyFlag("allowed-processing-option", .list), ProxyFlag("allow-security-options", .flag),
        ProxyFlag("max-result-dimension", .integer), ProxyFlag("signature-size", .integer), ProxyFlag("trusted-signature", .list),
        ProxyFlag("auto-webp", .flag), ProxyFlag("auto-avif", .flag), ProxyFlag("enforce-webp", .flag), ProxyFlag("enforce-avif", .flag),
        ProxyFlag("enforce-thumbnail", .flag), ProxyFlag("auto-jxl", .flag), ProxyFlag("enforce-jxl", .flag),
        ProxyFlag("preferred-format", .list), ProxyFlag("skip-processing-format", .list), ProxyFlag("watermark-opacity", .number),
        ProxyFlag("auto-rotate", .flag, invertible: true),
        ProxyFlag("enable-client-hints", .flag), ProxyFlag("url-replacement", .list), ProxyFlag("base64-url-includes-filename", .flag),
        ProxyFlag("preserve-hdr", .flag),
        ProxyFlag("strip-metadata", .flag, invertible: true),
    ]

    /// The flag named `name`, if the service has it.
    public static func named(_ name: String) -> ProxyFlag? { all.first { $0.name == name } }
}

/// One flag and its value as the environment gave it: `--name value`, or `--name` alone for a
/// ``ProxyFlag/Kind/flag`` (`value` nil), or `--no-name` (``negated``).
public struct FlagValue: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String?
    public var negated: Bool

    public init(_ name: String, _ value: String? = nil, negated: Bool = false) {
        self.name = name
        self.value = value
        self.negated = negated
    }

    /// The command-line arguments: `["--name", "value"]`, `["--name"]` or `["--no-name"]`.
    public var arguments: [String] {
        if negated { return ["--no-\(name)"] }
        return ["--\(name)"] + (value.map { [$0] } ?? [])
    }

    public var description: String { arguments.joined(separator: " ") }
}
