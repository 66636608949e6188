import Configuration
import Foundation

/// imgproxy's `IMGPROXY_*` settings (open-source edition) that concern what the service answers,
/// each mapped onto ``ProxyFlag``s: the table `--compat imgproxy` reads the environment with.
///
/// Values keep imgproxy's formats: comma-separated lists (several keys and salts pair up by
/// position), booleans (`true`/`false`, `1`/`0`, `yes`/`no`), seconds, bytes, megapixels.
/// A setting the service cannot honour is either a note (logged at start: it would change nothing
/// a client sees, or only loosen a limit) or, where ignoring it would open something imgproxy
/// keeps closed (`IMGPROXY_SECRET`) or break every URL (`IMGPROXY_PATH_PREFIX`), an error.
public struct ImgproxyVariable: Sendable {
    /// The name without `IMGPROXY_`: `SIGNATURE_SIZE`.
    public let name: String
    /// The flags it sets (by name: some belong to the compat flags).
    public let flags: [String]
    /// What it becomes, for the README's table.
    public let summary: String
    let read: @Sendable (ConfigReader, ConfigKey) throws -> Mapped

    /// What a variable's value became: flags to set, or a note to log.
    enum Mapped {
        case flags([FlagValue])
        case note(String)
    }

    /// `IMGPROXY_SIGNATURE_SIZE`.
    public var environmentVariable: String { "IMGPROXY_" + name }

    var key: ConfigKey { ConfigKey(["imgproxy", name.lowercased().replacingOccurrences(of: "_", with: "-")]) }
}

extension ImgproxyVariable {
    static func string(_ name: String, _ flag: String) -> Self {
        Self(name: name, flags: [flag], summary: "`--\(flag)`") { reader, key in .flags([FlagValue(flag, try reader.requiredString(forKey: key))]) }
    }

    static func list(_ name: String, _ flag: String) -> Self {
        Self(name: name, flags: [flag], summary: "`--\(flag)`, once per item") { reader, key in
            .flags(try items(reader, key).map { FlagValue(flag, $0) })
        }
    }

    /// An integer in `range`; `zeroMeans` (imgproxy's "no limit") makes 0 a note instead.
    static func int(_ name: String, _ flag: String, _ range: ClosedRange<Int>, zeroMeans: String? = nil) -> Self {
        Self(name: name, flags: [flag], summary: "`--\(flag)`" + (zeroMeans.map { " (0: \($0))" } ?? "")) { reader, key in
            let value = try reader.requiredInt(forKey: key)
            if value == 0, let zeroMeans { return .note("0 (\(zeroMeans)) is not offered: --\(flag) keeps its default") }
            guard range.contains(value) else { throw ImgproxyValueError("\(value) is outside \(range.lowerBound)…\(range.upperBound)") }
            return .flags([FlagValue(flag, "\(value)")])
        }
    }

    /// A boolean: true sets the flag; false sets `--no-` of an invertible flag, else nothing.
    static func bool(_ name: String, _ flag: String) -> Self {
        Self(name: name, flags: [flag], summary: "`--\(flag)` when true") { reader, key in
            if try reader.requiredBool(forKey: key) { return .flags([FlagValue(flag)]) }
            return .flags(ProxyFlag.named(flag)?.invertible == true ? [FlagValue(flag, negated: true)] : [])
        }
    }

    /// A boolean whose false sets the flag (imgproxy's `STRIP_COLOR_PROFILE=false` is `--keep-color-profile`).
    static func inverted(_ name: String, _ flag: String) -> Self {
        Self(name: name, flags: [flag], summary: "`--\(flag)` when false") { reader, key in
            .flags(try reader.requiredBool(forKey: key) ? [] : [FlagValue(flag)])
        }
    }

    /// A setting with no counterpart: a note when set (to anything but `harmless`).
    static func unsupported(_ name: String, _ reason: String, harmless: String? = nil) -> Self {
        Self(name: name, flags: [], summary: "not supported: \(reason)") { reader, key in
            let value = try reader.requiredString(forKey: key, isSecret: true)
            return value.lowercased() == harmless ? .flags([]) : .note("not supported: \(reason)")
        }
    }

    /// A setting the service must not run without honouring.
    static func refused(_ name: String, _ reason: String) -> Self {
        Self(name: name, flags: [], summary: "refused at start: \(reason)") { reader, key in
            if try reader.requiredString(forKey: key, isSecret: true).isEmpty { return .flags([]) }
            throw ImgproxyValueError("not supported, and the service will not start without it: \(reason)")
        }
    }

    static func items(_ reader: ConfigReader, _ key: ConfigKey, isSecret: Bool = false) throws -> [String] {
        try reader.requiredStringArray(forKey: key, isSecret: isSecret).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// A value an `IMGPROXY_*` variable cannot take.
struct ImgproxyValueError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
