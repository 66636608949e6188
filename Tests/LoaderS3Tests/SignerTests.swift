import Foundation
@testable import LoaderS3
import Testing

/// AWS's published Signature V4 examples: the S3 API reference's header-signing examples
/// (credentials `AKIAIOSFODNN7EXAMPLE`) and the generic test suite (`AKIDEXAMPLE`, service `service`).
@Suite struct SignerTests {
    struct Vector: Sendable, CustomStringConvertible {
        var name: String
        var method: String
        var url: String
        var headers: [String: String]
        var payloadHash: String
        var date: String
        var accessKey: String
        var secret: String
        var service: String
        var includeContentHash: Bool
        var signature: String
        var description: String { name }
    }

    static let s3Secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    static let suiteSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    static let empty = S3Signer.emptyPayloadHash

    static let vectors: [Vector] = [
        Vector(
            name: "S3 GET object with a range", method: "GET", url: "https://examplebucket.s3.amazonaws.com/test.txt",
            headers: ["Range": "bytes=0-9"], payloadHash: empty, date: "20130524T000000Z", accessKey: "AKIAIOSFODNN7EXAMPLE",
            secret: s3Secret, service: "s3", includeContentHash: true,
            signature: "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"),
        Vector(
            name: "S3 GET bucket lifecycle (a query name without value)", method: "GET", url: "https://examplebucket.s3.amazonaws.com/?lifecycle",
            headers: [:], payloadHash: empty, date: "20130524T000000Z", accessKey: "AKIAIOSFODNN7EXAMPLE",
            secret: s3Secret, service: "s3", includeContentHash: true,
            signature: "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"),
        Vector(
            name: "S3 list objects (query sorted)", method: "GET", url: "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J",
            headers: [:], payloadHash: empty, date: "20130524T000000Z", accessKey: "AKIAIOSFODNN7EXAMPLE",
            secret: s3Secret, service: "s3", includeContentHash: true,
            signature: "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"),
        Vector(
            name: "S3 PUT object with a signed body and an encoded key", method: "PUT", url: "https://examplebucket.s3.amazonaws.com/test%24file.text",
            headers: ["Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"],
            payloadHash: S3Signer.payloadHash(Data("Welcome to Amazon S3.".utf8)), date: "20130524T000000Z",
            accessKey: "AKIAIOSFODNN7EXAMPLE", secret: s3Secret, service: "s3", includeContentHash: true,
            signature: "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"),
        Vector(
            name: "suite get-vanilla", method: "GET", url: "https://example.amazonaws.com/", headers: [:], payloadHash: empty,
            date: "20150830T123600Z", accessKey: "AKIDEXAMPLE", secret: suiteSecret, service: "service", includeContentHash: false,
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(
            name: "suite get-vanilla-query-order-key-case", method: "GET", url: "https://example.amazonaws.com/?Param2=value2&Param1=value1",
            headers: [:], payloadHash: empty, date: "20150830T123600Z", accessKey: "AKIDEXAMPLE", secret: suiteSecret,
            service: "service", includeContentHash: false,
            signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
    ]

    static func date(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.date(from: text)!
    }

    @Test(arguments: vectors)
    func signatureMatchesAWSExample(_ vector: Vector) {
        let signer = S3Signer(
            credentials: S3Credentials(accessKeyID: vector.accessKey, secretAccessKey: vector.secret), region: "us-east-1", service: vector.service)
        let headers = signer.signedHeaders(
            method: vector.method, url: URL(string: vector.url)!, headers: vector.headers, payloadHash: vector.payloadHash,
            date: Self.date(vector.date), includeContentHash: vector.includeContentHash)
        let authorization = headers["Authorization"] ?? ""
        #expect(authorization.hasSuffix("Signature=\(vector.signature)"), "\(authorization)")
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=\(vector.accessKey)/\(vector.date.prefix(8))/us-east-1/\(vector.service)/aws4_request"))
        #expect(headers["x-amz-date"] == vector.date)
    }

    @Test func canonicalRequestOfTheS3ExampleIsAWSs() {
        let signer = S3Signer(credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: Self.s3Secret), region: "us-east-1")
        let url = URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")!
        let canonical = signer.canonicalRequest(method: "GET", url: url, headers: [
            "host": "examplebucket.s3.amazonaws.com", "Range": "bytes=0-9", "x-amz-content-sha256": Self.empty, "x-amz-date": "20130524T000000Z",
        ], payloadHash: Self.empty)
        #expect(canonical.signedHeaders == "host;range;x-amz-content-sha256;x-amz-date")
        #expect(S3Signer.payloadHash(Data(canonical.request.utf8)) == "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972")
    }

    @Test func sessionTokenIsSentAndSigned() {
        let signer = S3Signer(credentials: S3Credentials(accessKeyID: "ASIA1", secretAccessKey: "s", sessionToken: "tok en"), region: "eu-west-1")
        let headers = signer.signedHeaders(method: "GET", url: URL(string: "http://127.0.0.1:9000/b/k")!)
        #expect(headers["x-amz-security-token"] == "tok en")
        #expect(headers["Authorization"]?.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token") == true)
    }

    @Test func queryIsSortedAndEncoded() {
        let url = URL(string: "https://h/b?versionId=a%2Bb&list-type=2&prefix=x%20y")!
        #expect(S3Signer.canonicalQuery(url) == "list-type=2&prefix=x%20y&versionId=a%2Bb")
        #expect(S3Signer.hostHeader(URL(string: "http://127.0.0.1:8080/x")!) == "127.0.0.1:8080")
        #expect(S3Signer.hostHeader(URL(string: "https://h:443/x")!) == "h")
    }
}
