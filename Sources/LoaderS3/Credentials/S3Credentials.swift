import Foundation

/// An access key, its secret, and for temporary credentials a session token and expiry.
public struct S3Credentials: Sendable, Hashable {
    /// The access key ID (`AKIA…`, `ASIA…`).
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// The session token of temporary credentials (sent as `x-amz-security-token`).
    public var sessionToken: String?
    /// When temporary credentials stop working; nil for long-term keys.
    public var expiration: Date?

    /// Credentials from their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// Whether the credentials expire within `margin` of `now` (never for long-term keys).
    public func expires(within margin: TimeInterval, of now: Date = Date()) -> Bool {
        guard let expiration else { return false }
        return expiration.timeIntervalSince(now) <= margin
    }
}
