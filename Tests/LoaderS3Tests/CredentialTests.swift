import Foundation
import ImageKernel
import ImageKernelTestSupport
@testable import LoaderS3
import Testing

/// The credential chain against the real gateway: environment, shared files, a container
/// credentials endpoint (played by ``HTTPTestServer``) with expiry and refresh.
@Suite(.enabled(if: CephRGWServer.isAvailable)) struct CredentialTests {
    /// An environment that points the loader at the gateway and keeps IMDS out of the way.
    static func environment(_ server: CephRGWServer, _ extra: [String: String]) -> [String: String] {
        ["AWS_ENDPOINT_URL_S3": server.endpoint.absoluteString, "AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true",
         "HOME": "/nonexistent-home"].merging(extra) { _, new in new }
    }

    static func loader(_ environment: [String: String]) throws -> S3Loader {
        try S3Loader(configuration: S3Loader.Configuration(environment: environment))
    }

    static func object(_ server: CephRGWServer) async throws -> (URL, Data) {
        let bucket = try await server.makeBucket("creds")
        let data = RGW.bytes(1_000)
        try await server.put(bucket: bucket, key: "k.jpg", data: data)
        return (URL(string: "s3://\(bucket)/k.jpg")!, data)
    }

    @Test func environmentVariablesAndEndpointSign() async throws {
        let server = try RGW.server()
        let (url, data) = try await Self.object(server)
        let env = Self.environment(server, ["AWS_ACCESS_KEY_ID": server.accessKey, "AWS_SECRET_ACCESS_KEY": server.secretKey])
        let loader = try Self.loader(env)
        #expect(loader.endpoint.url == server.endpoint)
        #expect(try await loader.load(url).data == data)
        let wrong = try Self.loader(env.merging(["AWS_SECRET_ACCESS_KEY": "wrong"]) { _, new in new })
        let error = try await #require(throws: ImageKernelError.self) { try await wrong.load(url) }
        #expect(error.s3Error?.code == "SignatureDoesNotMatch")
    }

    @Test func profileFilesAndAWSProfile() async throws {
        let server = try RGW.server()
        let (url, data) = try await Self.object(server)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aws-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let credentials = directory.appendingPathComponent("credentials")
        let config = directory.appendingPathComponent("config")
        try """
        [default]
        aws_access_key_id = WRONGDEFAULT
        aws_secret_access_key = nope

        [images]
        # the gateway's user
        aws_access_key_id = \(server.accessKey)
        aws_secret_access_key = \(server.secretKey)
        """.write(to: credentials, atomically: true, encoding: .utf8)
        try """
        [profile fromconfig]
        region = us-east-1
        aws_access_key_id=\(server.accessKey)
        aws_secret_access_key=\(server.secretKey)
        """.write(to: config, atomically: true, encoding: .utf8)
        let files = ["AWS_SHARED_CREDENTIALS_FILE": credentials.path, "AWS_CONFIG_FILE": config.path]
        for profile in ["images", "fromconfig"] {
            let loader = try Self.loader(Self.environment(server, files.merging(["AWS_PROFILE": profile]) { _, new in new }))
            #expect(try await loader.load(url).data == data, "profile \(profile)")
        }
        let fallback = try Self.loader(Self.environment(server, files))
        let error = try await #require(throws: ImageKernelError.self) { try await fallback.load(url) }
        #expect(error.s3Error?.code == "InvalidAccessKeyId")
    }

    @Test func containerEndpointIsAskedWithItsTokenAndRefreshedBeforeExpiry() async throws {
        let server = try RGW.server()
        let (url, data) = try await Self.object(server)
        let origin = try HTTPTestServer()
        defer { origin.stop() }
        func serve(secret: String, expiresIn seconds: TimeInterval) {
            let expiry = ISO8601DateFormatter().string(from: Date().addingTimeInterval(seconds))
            let json = #"{"AccessKeyId":"\#(server.accessKey)","SecretAccessKey":"\#(secret)","Expiration":"\#(expiry)"}"#
            origin.addFile("creds", data: Data(json.utf8))
        }
        let env = Self.environment(server, [
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": origin.url("/files/creds").absoluteString,
            "AWS_CONTAINER_AUTHORIZATION_TOKEN": "Bearer ik-token",
        ])
        // Valid for an hour: fetched once, then kept.
        serve(secret: server.secretKey, expiresIn: 3600)
        let loader = try Self.loader(env)
        #expect(try await loader.load(url).data == data)
        #expect(try await loader.load(url).data == data)
        #expect(origin.requestCount(path: "/files/creds") == 1)
        #expect(origin.requests.first?.headers["authorization"] == "Bearer ik-token")

        // Within the refresh margin (5 minutes) of expiry: fetched again on the next load, so new keys take effect.
        serve(secret: server.secretKey, expiresIn: 120)
        let refreshing = try Self.loader(env)
        #expect(try await refreshing.load(url).data == data)
        serve(secret: "rotated-away", expiresIn: 3600)
        let error = try await #require(throws: ImageKernelError.self) { try await refreshing.load(url) }
        #expect(error.s3Error?.code == "SignatureDoesNotMatch")
        #expect(origin.requestCount(path: "/files/creds") == 3)
    }

    @Test func containerEndpointFailuresAreTypedAndBounded() async throws {
        let origin = try HTTPTestServer()
        defer { origin.stop() }
        let refused = ContainerS3Credentials(environment: ["AWS_CONTAINER_CREDENTIALS_FULL_URI": origin.url("/status/403").absoluteString])
        let error = try await #require(throws: ImageKernelError.self) { try await refused.credentials() }
        #expect(error.code == .permissionDenied)
        origin.addFile("garbage", data: Data("{}".utf8))
        let garbage = ContainerS3Credentials(environment: ["AWS_CONTAINER_CREDENTIALS_FULL_URI": origin.url("/files/garbage").absoluteString])
        #expect(try await #require(throws: ImageKernelError.self) { try await garbage.credentials() }.code == .corruptData)
        let stalled = ContainerS3Credentials(
            environment: ["AWS_CONTAINER_CREDENTIALS_FULL_URI": origin.url("/stall").absoluteString], timeout: .milliseconds(300))
        #expect(try await #require(throws: ImageKernelError.self) { try await stalled.credentials() }.code == .timeout)
        #expect(try await ContainerS3Credentials(environment: [:]).credentials() == nil)
    }

    @Test func instanceMetadataServiceV2IsAskedWithASessionToken() async throws {
        let server = try RGW.server()
        let (url, data) = try await Self.object(server)
        let imds = try HTTPTestServer()
        defer { imds.stop() }
        let expiry = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
        imds.addFile("imds-credentials", data: Data(#"{"Code":"Success","AccessKeyId":"\#(server.accessKey)","SecretAccessKey":"\#(server.secretKey)","Expiration":"\#(expiry)"}"#.utf8))
        var env = Self.environment(server, ["AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.baseURL.absoluteString])
        env["AWS_EC2_METADATA_DISABLED"] = nil
        #expect(try await Self.loader(env).load(url).data == data)
        #expect(imds.requests.map(\.method) == ["PUT", "GET", "GET"])
        // Nothing listening: no credentials from IMDS (nil, so the chain ends in a typed error), within the bound.
        let port = try SilentListener().port
        let absent = InstanceMetadataS3Credentials(environment: ["AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:\(port)"], timeout: .milliseconds(300))
        #expect(try await absent.credentials() == nil)
    }

    @Test func credentialsDocumentCarriesTokenAndExpiry() throws {
        let json = Data(#"{"AccessKeyId":"ASIA","SecretAccessKey":"s","Token":"t","Expiration":"2030-01-02T03:04:05Z"}"#.utf8)
        let parsed = try CredentialsDocument.parse(json, source: "test")
        #expect(parsed.sessionToken == "t")
        #expect(parsed.expiration == ISO8601DateFormatter().date(from: "2030-01-02T03:04:05Z"))
    }

    @Test func noCredentialsAnywhereIsForbidden() async throws {
        let chain = S3CredentialChain.standard(environment: ["HOME": "/nonexistent-home", "AWS_EC2_METADATA_DISABLED": "true"])
        let error = try await #require(throws: ImageKernelError.self) { try await chain.credentials() }
        #expect(error.code == .permissionDenied)
    }
}
