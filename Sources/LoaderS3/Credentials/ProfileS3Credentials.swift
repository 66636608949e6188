import Foundation
import ImageKernel

/// The shared files: `~/.aws/credentials` and `~/.aws/config` (or `AWS_SHARED_CREDENTIALS_FILE`
/// and `AWS_CONFIG_FILE`), profile `AWS_PROFILE` (default `default`).
///
/// Keys are read from the credentials file's `[name]` section first, then from the config file's
/// `[profile name]` (`[default]` for the default profile). Other ways of getting credentials a
/// profile may describe (`role_arn`, `sso_*`, `credential_process`) are not followed.
public struct ProfileS3Credentials: S3CredentialsProvider {
    let environment: [String: String]
    /// The profile's name.
    public let profile: String

    /// Reads the files and profile that `environment` names.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, profile: String? = nil) {
        self.environment = environment
        self.profile = profile ?? environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    }

    var credentialsFile: String {
        environment["AWS_SHARED_CREDENTIALS_FILE"] ?? "\(home)/.aws/credentials"
    }

    var configFile: String { environment["AWS_CONFIG_FILE"] ?? "\(home)/.aws/config" }

    private var home: String { environment["HOME"] ?? NSHomeDirectory() }

    /// The profile's keys; nil when neither file has them.
    /// - Throws: `invalidArgument` when the profile has a key ID but no secret.
    public func credentials() async throws(ImageKernelError) -> S3Credentials? {
        let sections = [
            (credentialsFile, profile),
            (configFile, profile == "default" ? "default" : "profile \(profile)"),
        ]
        for (file, section) in sections {
            guard let values = Self.section(section, inFile: file), let id = values["aws_access_key_id"] else { continue }
            guard let secret = values["aws_secret_access_key"], !secret.isEmpty else {
                throw .s3(.invalidArgument, "profile \(profile) in \(file) has aws_access_key_id but no aws_secret_access_key")
            }
            return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: values["aws_session_token"])
        }
        return nil
    }

    /// The profile's `region` in the config file, if any.
    public func region() -> String? {
        Self.section(profile == "default" ? "default" : "profile \(profile)", inFile: configFile)?["region"]
    }

    /// The `name = value` pairs of one `[section]` of an INI file, or nil when there is none.
    static func section(_ name: String, inFile path: String) -> [String: String]? {
        guard let data = FileManager.default.contents(atPath: path), data.count < 1 << 20 else { return nil }
        return section(name, in: String(decoding: data, as: UTF8.self))
    }

    static func section(_ name: String, in text: String) -> [String: String]? {
        var current: String?
        var values: [String: String]?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                current = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                if current == name, values == nil { values = [:] }
                continue
            }
            guard current == name, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            values?[key] = value
        }
        return values
    }
}
