import Foundation
import ImageKernel

/// A source of ``S3Credentials``: the environment, the shared files, a container or instance
/// endpoint, or your own.
///
/// ## Implementation requirements
/// - **Thread safety.** Shared and `Sendable`; ``credentials()`` may be called from many tasks at once.
/// - **Absence is not failure.** Return nil when the source has nothing to offer (no variables,
///   no file, no endpoint configured), so a chain asks the next source. Throw only when the
///   source is configured but broken (an endpoint that answers garbage, a file without a secret).
/// - **Bounded.** Every wait (network, file) is bounded; an endpoint that does not answer fails
///   with `timeout`, never hangs.
/// - **Errors.** Throw ``ImageKernel/ImageKernelError`` with stage `.load` and plugin `"LoaderS3"`.
/// - **Caching** is not required: ``S3CredentialChain`` keeps what a source returned until
///   shortly before its ``S3Credentials/expiration``.
public protocol S3CredentialsProvider: Sendable {
    /// The credentials this source has now, or nil when it has none.
    func credentials() async throws(ImageKernelError) -> S3Credentials?
}

/// Fixed credentials.
public struct StaticS3Credentials: S3CredentialsProvider {
    public let value: S3Credentials
    /// A provider that always answers `value`.
    public init(_ value: S3Credentials) { self.value = value }
    public func credentials() async throws(ImageKernelError) -> S3Credentials? { value }
}

/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
public struct EnvironmentS3Credentials: S3CredentialsProvider {
    let environment: [String: String]
    /// Reads `environment` (the process's by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) { self.environment = environment }

    /// The variables' credentials; nil without `AWS_ACCESS_KEY_ID`.
    /// - Throws: `invalidArgument` when the key ID is set but the secret is not.
    public func credentials() async throws(ImageKernelError) -> S3Credentials? {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty else { return nil }
        guard let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
            throw .s3(.invalidArgument, "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
        }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }
}

/// Asks its sources in order and keeps the first answer until it is about to expire.
///
/// The default chain is the AWS SDKs' order: environment, shared files (`AWS_PROFILE`), the
/// container endpoint (`AWS_CONTAINER_CREDENTIALS_*`), then IMDSv2. Temporary credentials are
/// fetched again ``refreshMargin`` before their expiry; concurrent callers share one fetch.
public final class S3CredentialChain: S3CredentialsProvider {
    /// The sources, asked in order.
    public let providers: [any S3CredentialsProvider]
    /// How long before expiry credentials are replaced (default 5 minutes).
    public let refreshMargin: TimeInterval
    private let state = Locked<Task<S3Credentials?, Never>?>(nil)
    private let cached = Locked<Result<S3Credentials, ImageKernelError>?>(nil)

    /// A chain of `providers`.
    public init(_ providers: [any S3CredentialsProvider], refreshMargin: TimeInterval = 300) {
        self.providers = providers
        self.refreshMargin = refreshMargin
    }

    /// The AWS SDKs' default chain on `environment`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> S3CredentialChain {
        let exchange = CurlExchange()
        return S3CredentialChain([
            EnvironmentS3Credentials(environment: environment),
            ProfileS3Credentials(environment: environment),
            ContainerS3Credentials(environment: environment, exchange: exchange),
            InstanceMetadataS3Credentials(environment: environment, exchange: exchange),
        ])
    }

    /// The current credentials (cached, refreshed before expiry).
    /// - Throws: `permissionDenied` when no source has credentials, or the first source's error.
    public func credentials() async throws(ImageKernelError) -> S3Credentials? {
        if case .success(let value)? = cached.withLock({ $0 }), !value.expires(within: refreshMargin) { return value }
        let task = state.withLock { current -> Task<S3Credentials?, Never> in
            if let current { return current }
            let task = Task { await self.resolve() }
            current = task
            return task
        }
        _ = await task.value
        state.withLock { if $0 == task { $0 = nil } }
        switch cached.withLock({ $0 }) {
        case .success(let value)?: return value
        case .failure(let error)?: throw error
        case nil: throw .s3(.internalError, "no credentials resolved")
        }
    }

    private func resolve() async -> S3Credentials? {
        for provider in providers {
            do {
                if let found = try await provider.credentials() {
                    cached.withLock { $0 = .success(found) }
                    return found
                }
            } catch {
                cached.withLock { $0 = .failure(error) }
                return nil
            }
        }
        cached.withLock {
            $0 = .failure(.s3(.permissionDenied, "no S3 credentials: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile in ~/.aws, or a container or instance role"))
        }
        return nil
    }
}
