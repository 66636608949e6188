import Foundation
import ImageKernel

/// The container credentials endpoint (ECS, EKS Pod Identity):
/// `AWS_CONTAINER_CREDENTIALS_FULL_URI`, or `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` under
/// `http://169.254.170.2`, with `AWS_CONTAINER_AUTHORIZATION_TOKEN` (or the file
/// `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` names) sent as `Authorization`.
public struct ContainerS3Credentials: S3CredentialsProvider {
    let environment: [String: String]
    let exchange: CurlExchange
    /// How long the endpoint may take (default 2 s).
    public let timeout: Duration

    /// Reads the endpoint from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, timeout: Duration = .seconds(2)) {
        self.init(environment: environment, exchange: CurlExchange(maxIdleHandles: 1), timeout: timeout)
    }

    init(environment: [String: String], exchange: CurlExchange, timeout: Duration = .seconds(2)) {
        self.environment = environment
        self.exchange = exchange
        self.timeout = timeout
    }

    var endpoint: URL? {
        if let full = environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"], !full.isEmpty { return URL(string: full) }
        if let relative = environment["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"], !relative.isEmpty {
            return URL(string: "http://169.254.170.2" + (relative.hasPrefix("/") ? "" : "/") + relative)
        }
        return nil
    }

    /// The endpoint's credentials; nil when no endpoint is configured.
    /// - Throws: transport errors (`timeout`, `cannotConnect`), `permissionDenied` for a refused
    ///   token, `corruptData` for an answer without keys.
    public func credentials() async throws(ImageKernelError) -> S3Credentials? {
        guard let endpoint else { return nil }
        var headers: [String: String] = ["Accept": "application/json"]
        if let token = environment["AWS_CONTAINER_AUTHORIZATION_TOKEN"], !token.isEmpty {
            headers["Authorization"] = token
        } else if let file = environment["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"],
                  let data = FileManager.default.contents(atPath: file) {
            headers["Authorization"] = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let response = try await exchange.perform(method: "GET", url: endpoint, headers: headers, timeout: timeout, maxBody: 64 << 10)
        guard response.status == 200 else {
            let code: ImageKernelError.Code = response.status == 401 || response.status == 403 ? .permissionDenied : .httpStatus
            throw .s3(code, "the container credentials endpoint answered \(response.status)", httpStatus: response.status)
        }
        return try CredentialsDocument.parse(response.body, source: "the container credentials endpoint")
    }
}

/// IMDSv2 on EC2: a session token from `PUT /latest/api/token`, the role from
/// `/latest/meta-data/iam/security-credentials/`, then its credentials. Off with
/// `AWS_EC2_METADATA_DISABLED=true`; `AWS_EC2_METADATA_SERVICE_ENDPOINT` moves it.
public struct InstanceMetadataS3Credentials: S3CredentialsProvider {
    let environment: [String: String]
    let exchange: CurlExchange
    /// How long each request may take (default 1 s: off EC2 nothing answers).
    public let timeout: Duration

    /// Reads the settings from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, timeout: Duration = .seconds(1)) {
        self.init(environment: environment, exchange: CurlExchange(maxIdleHandles: 1), timeout: timeout)
    }

    init(environment: [String: String], exchange: CurlExchange, timeout: Duration = .seconds(1)) {
        self.environment = environment
        self.exchange = exchange
        self.timeout = timeout
    }

    /// The instance role's credentials; nil when disabled or when no metadata service answers.
    public func credentials() async throws(ImageKernelError) -> S3Credentials? {
        if environment["AWS_EC2_METADATA_DISABLED"]?.lowercased() == "true" { return nil }
        let base = (environment["AWS_EC2_METADATA_SERVICE_ENDPOINT"] ?? "http://169.254.169.254").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard let tokenURL = URL(string: "\(base)/latest/api/token"),
              let token = try? await exchange.perform(
                method: "PUT", url: tokenURL, headers: ["X-aws-ec2-metadata-token-ttl-seconds": "21600"], body: Data(),
                timeout: timeout, maxBody: 4096),
              token.status == 200 else { return nil }
        let header = ["X-aws-ec2-metadata-token": String(decoding: token.body, as: UTF8.self)]
        let rolesURL = URL(string: "\(base)/latest/meta-data/iam/security-credentials/")!
        let roles = try await exchange.perform(method: "GET", url: rolesURL, headers: header, timeout: timeout, maxBody: 4096)
        guard roles.status == 200, let role = String(decoding: roles.body, as: UTF8.self).split(whereSeparator: \.isNewline).first else {
            return nil
        }
        let roleURL = rolesURL.appendingPathComponent(String(role))
        let response = try await exchange.perform(method: "GET", url: roleURL, headers: header, timeout: timeout, maxBody: 64 << 10)
        guard response.status == 200 else {
            throw .s3(.httpStatus, "the instance metadata service answered \(response.status) for role \(role)", httpStatus: response.status)
        }
        return try CredentialsDocument.parse(response.body, source: "the instance metadata service")
    }
}

/// The JSON both endpoints answer: `AccessKeyId`, `SecretAccessKey`, `Token`, `Expiration`.
enum CredentialsDocument {
    private struct Body: Decodable {
        var AccessKeyId: String?
        var SecretAccessKey: String?
        var Token: String?
        var Expiration: String?
    }

    static func parse(_ data: Data, source: String) throws(ImageKernelError) -> S3Credentials {
        guard let body = try? JSONDecoder().decode(Body.self, from: data), let id = body.AccessKeyId, let secret = body.SecretAccessKey else {
            throw .s3(.corruptData, "\(source) answered without AccessKeyId and SecretAccessKey")
        }
        var expiration: Date?
        if let text = body.Expiration {
            let formatter = ISO8601DateFormatter()
            expiration = formatter.date(from: text)
            if expiration == nil {
                formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                expiration = formatter.date(from: text)
            }
            guard expiration != nil else { throw .s3(.corruptData, "\(source) answered an unreadable Expiration \(text.debugDescription)") }
        }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: body.Token, expiration: expiration)
    }
}
