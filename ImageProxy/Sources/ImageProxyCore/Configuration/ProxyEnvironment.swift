import Configuration
import Foundation

/// Configuration from the environment, read with swift-configuration: a pure function from an
/// environment and a command line to the flags the environment adds.
///
/// - Every ``ProxyFlag`` can be given as `IMAGE_PROXY_<NAME>` (``ProxyFlag/environmentVariable``):
///   a value, a comma-separated list for a repeatable flag, a boolean for a switch.
/// - With `--compat imgproxy` (or `IMAGE_PROXY_COMPAT=imgproxy`), imgproxy's `IMGPROXY_*`
///   settings are read too, through ``ImgproxyVariable/table``.
/// - Precedence: the command line, then `IMAGE_PROXY_*`, then `IMGPROXY_*`. A flag given by a
///   stronger source is not read from a weaker one at all (a repeatable flag is not merged).
///   Among `IMGPROXY_*` variables that set one flag, the first in the table wins, except that
///   those setting a repeatable flag add up (`IMGPROXY_QUALITY` and `IMGPROXY_FORMAT_QUALITY`).
public enum ProxyEnvironment {
    /// What the environment adds to a command line.
    public struct Settings: Sendable, Equatable {
        /// The flags set by the environment, ours first, then imgproxy's, each in table order.
        public var flags: [FlagValue] = []
        /// `IMGPROXY_*` variables read but not applied, with the reason (log them as warnings).
        public var notes: [String] = []

        /// The flags as command-line arguments, to append to the command line.
        public var arguments: [String] { flags.flatMap(\.arguments) }
    }

    /// The variables whose values are never shown in errors or logs.
    static let secrets: Set<String> = ["IMAGE_PROXY_KEY", "IMAGE_PROXY_SALT", "IMGPROXY_KEY", "IMGPROXY_SALT", "IMGPROXY_SECRET"]

    /// The flags `environment` adds to `commandLine` (the arguments after the program's name).
    /// - Throws: ``ProxyError`` 500 `invalid_configuration` naming the variable whose value is
    ///   bad (not a number, not a boolean, out of range) or a setting the service refuses to run
    ///   without honouring.
    public static func settings(environment: [String: String], commandLine: [String]) throws(ProxyError) -> Settings {
        let provider = EnvironmentVariablesProvider(
            environmentVariables: environment, secretsSpecifier: .dynamic { name, _ in secrets.contains(name.uppercased()) })
        let reader = ConfigReader(provider: provider)
        var given = givenFlags(commandLine)
        var settings = Settings()
        for flag in ProxyFlag.all where !given.contains(flag.name) {
            let key = ConfigKey(["image-proxy", flag.name])
            guard reader.string(forKey: key, isSecret: true) != nil else { continue }
            let values = try read(flag.environmentVariable) { () throws -> [FlagValue] in
                switch flag.kind {
                case .value: return [FlagValue(flag.name, try reader.requiredString(forKey: key, isSecret: true))]
                case .integer: return [FlagValue(flag.name, "\(try reader.requiredInt(forKey: key))")]
                case .number: return [FlagValue(flag.name, "\(try reader.requiredDouble(forKey: key))")]
                case .list: return try ImgproxyVariable.items(reader, key, isSecret: true).map { FlagValue(flag.name, $0) }
                case .flag:
                    if try reader.requiredBool(forKey: key) { return [FlagValue(flag.name)] }
                    return flag.invertible ? [FlagValue(flag.name, negated: true)] : []
                }
            }
            settings.flags += values
        }
        given.formUnion(settings.flags.map(\.name))
        let compat = commandLineValue("compat", commandLine) ?? settings.flags.first { $0.name == "compat" }?.value
        guard compat?.lowercased() == "imgproxy" else { return settings }

        if reader.string(forKey: ConfigKey(["imgproxy", "salt"]), isSecret: true) != nil,
            reader.string(forKey: ConfigKey(["imgproxy", "key"]), isSecret: true) == nil
        {
            throw ProxyError(status: 500, code: "invalid_configuration", message: "IMGPROXY_SALT is set without IMGPROXY_KEY")
        }
        for variable in ImgproxyVariable.table where !variable.flags.contains(where: given.contains) {
            guard reader.string(forKey: variable.key, isSecret: true) != nil else { continue }
            let mapped = try read(variable.environmentVariable) { try variable.read(reader, variable.key) }
            switch mapped {
            case .flags(let values):
                settings.flags += values
                // A later imgproxy variable may add to a repeatable flag (IMGPROXY_FORMAT_QUALITY
                // after IMGPROXY_QUALITY), never replace a single one (WATERMARK_URL after _PATH).
                given.formUnion(variable.flags.filter { ProxyFlag.named($0)?.kind != .list })
            case .note(let note):
                settings.notes.append("\(variable.environmentVariable): \(note)")
            }
        }
        // Every other IMGPROXY_* variable (Pro features, cloud storages, error reporters, …) is
        // named, so no setting is dropped in silence.
        let known = Set(ImgproxyVariable.table.map(\.environmentVariable) + ["IMGPROXY_SALT"])
        for name in environment.keys.sorted() where name.hasPrefix("IMGPROXY_") && !known.contains(name) {
            settings.notes.append("\(name): not read by image-proxy (see the README's variable table)")
        }
        return settings
    }

    /// Runs `body`, turning its error into `invalid_configuration` naming `variable`.
    private static func read<T>(_ variable: String, _ body: () throws -> T) throws(ProxyError) -> T {
        do {
            return try body()
        } catch let error as ImgproxyValueError {
            throw ProxyError(status: 500, code: "invalid_configuration", message: "\(variable): \(error)")
        } catch {
            let shown = secrets.contains(variable) ? "its value is not valid" : "\(error)"
            throw ProxyError(status: 500, code: "invalid_configuration", message: "\(variable): \(shown)")
        }
    }

    /// The names of the flags `commandLine` gives (`--name`, `--name=value`, `--no-name`).
    static func givenFlags(_ commandLine: [String]) -> Set<String> {
        var names = Set<String>()
        for argument in commandLine {
            if argument == "--" { break }
            guard argument.hasPrefix("--") else { continue }
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            names.insert(name)
            if name.hasPrefix("no-") { names.insert(String(name.dropFirst(3))) }
        }
        return names
    }

    /// The value of `--name VALUE` or `--name=VALUE` on `commandLine` (the last one).
    static func commandLineValue(_ name: String, _ commandLine: [String]) -> String? {
        var value: String?
        var index = commandLine.startIndex
        while index < commandLine.endIndex {
            let argument = commandLine[index]
            if argument == "--\(name)", index + 1 < commandLine.endIndex {
                value = commandLine[index + 1]
                index += 1
            } else if argument.hasPrefix("--\(name)=") {
                value = String(argument.dropFirst(name.count + 3))
            }
            index += 1
        }
        return value
    }
}
