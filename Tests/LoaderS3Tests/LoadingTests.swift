import Foundation
import ImageKernel
import ImageKernelTestSupport
import LoaderS3
import Testing

/// Loads from a real Ceph RADOS Gateway, which checks every signature.
@Suite(.enabled(if: CephRGWServer.isAvailable)) struct LoadingTests {
    @Test func getReturnsTheObjectWithItsValidators() async throws {
        let server = try RGW.server()
        let bucket = try await server.makeBucket()
        let data = RGW.bytes(50_000)
        try await server.put(bucket: bucket, key: "photo.jpg", data: data)
        let loader = try RGW.loader(server)
        let url = URL(string: "s3://\(bucket)/photo.jpg")!
        let result = try await loader.load(url)
        #expect(result.data == data)
        #expect(result.statusCode == 200)
        #expect(result.url == url)
        #expect(result.validators?.etag != nil)
    }

    @Test func rangedGetReturnsThePart() async throws {
        let server = try RGW.server()
        let bucket = try await server.makeBucket()
        let data = RGW.bytes(10_000)
        try await server.put(bucket: bucket, key: "r.bin", data: data)
        let result = try await RGW.loader(server).load(URL(string: "s3://\(bucket)/r.bin")!, headers: ["Range": "bytes=100-199"])
        #expect(result.statusCode == 206)
        #expect(result.data == data[100..<200])
    }

    @Test func conditionalGetWithTheETagIsNotModified() async throws {
        let server = try RGW.server()
        let bucket = try await server.makeBucket()
        let headers = try await server.put(bucket: bucket, key: "c.bin", data: RGW.bytes(2_000))
        let etag = try #require(headers["etag"])
        let loader = try RGW.loader(server)
        let url = URL(string: "s3://\(bucket)/c.bin")!
        let result = try await loader.load(url, validators: CacheValidators(etag: etag))
        #expect(result.notModified)
        #expect(result.data.isEmpty)
        let changed = try await loader.load(url, validators: CacheValidators(etag: "\"0123\""))
        #expect(!changed.notModified && changed.data.count == 2_000)
    }

    @Test func missingKeyAndBucketAreNotFound() async throws {
        let server = try RGW.server()
        let bucket = try await server.makeBucket()
        let loader = try RGW.loader(server)
        for (url, s3Code) in [("s3://\(bucket)/nope.jpg", "NoSuchKey"), ("s3://no-such-bucket-ik/x.jpg", "NoSuchBucket")] {
            let error = try await #require(throws: ImageKernelError.self) { try await loader.load(URL(string: url)!) }
            #expect(error.code == .notFound)
            #expect(error.httpStatus == 404)
            #expect(error.s3Error?.code == s3Code)
            #expect(error.plugin == "LoaderS3")
            #expect(!error.isTransient)
        }
    }

    @Test func wrongSecretIsATypedForbidden() async throws {
        let server = try RGW.server()
        let bucket = try await server.makeBucket()
        try await server.put(bucket: bucket, key: "k", data: RGW.bytes(10))
        let wrong = S3Credentials(accessKeyID: server.accessKey, secretAccessKey: "not-the-secret")
        let error = try await #require(throws: ImageKernelError.self) {
            try await RGW.loader(server, credentials: wrong).load(URL(string: "s3://\(bucket)/k")!)
        }
        #expect(error.code == .permissionDenied)
        #expect(error.httpStatus == 403)
        #expect(error.s3Error?.code == "SignatureDoesNotMatch")
        let unknown = S3Credentials(accessKeyID: "NOSUCHKEY", secretAccessKey: "x")
        let other = try await #require(throws: ImageKernelError.self) {
            try await RGW.loader(server, credentials: unknown).load(URL(string: "s3://\(bucket)/k")!)
        }
        #expect(other.code == .permissionDenied && other.s3Error?.code == "InvalidAccessKeyId")
    }

    @Test func virtualHostAddressingReachesTheBucket() async throws {
        let server = try RGW.server()
        let bucket = try await server.makeBucket()
        let data = RGW.bytes(3_000)
        try await server.put(bucket: bucket, key: "v/host.png", data: data)
        let loader = try RGW.loader(server, addressing: .virtualHost)
        #expect(loader.endpoint.requestURL(bucket: bucket, key: "v/host.png", region: "us-east-1").host == "\(bucket).localhost")
        #expect(try await loader.load(URL(string: "s3://\(bucket)/v/host.png")!).data == data)
    }

    @Test func keysWithSpacesPlusUnicodeAndQuestionMarksReachTheirObjects() async throws {
        let server = try RGW.server()
        let bucket = try await server.makeBucket()
        let loader = try RGW.loader(server)
        let cases: [(key: String, url: String)] = [
            ("with space.jpg", "with%20space.jpg"), ("plus+sign.png", "plus%2Bsign.png"), ("q?mark.jpg", "q%3Fmark.jpg"),
            ("dir/ünïcödé 画像.webp", "dir/%C3%BCn%C3%AFc%C3%B6d%C3%A9%20%E7%94%BB%E5%83%8F.webp"), ("a&b=c;d.gif", "a%26b%3Dc%3Bd.gif"),
        ]
        for (index, item) in cases.enumerated() {
            let data = RGW.bytes(500 + index, seed: UInt8(index))
            try await server.put(bucket: bucket, key: item.key, data: data)
            let url = try #require(URL(string: "s3://\(bucket)/\(item.url)"))
            #expect(try S3Location(url: url).key == item.key)
            #expect(try await loader.load(url).data == data, "\(item.key)")
        }
    }

    @Test func versionIdReadsThatVersion() async throws {
        let server = try RGW.server()
        let bucket = try await server.makeBucket("versioned")
        try await server.enableVersioning(bucket)
        let first = try await server.put(bucket: bucket, key: "v.bin", data: Data("first".utf8))
        try await server.put(bucket: bucket, key: "v.bin", data: Data("second".utf8))
        let version = try #require(first["x-amz-version-id"])
        let loader = try RGW.loader(server)
        #expect(try await loader.load(URL(string: "s3://\(bucket)/v.bin")!).data == Data("second".utf8))
        let old = try #require(URL(string: "s3://\(bucket)/v.bin?versionId=\(version)"))
        #expect(try S3Location(url: old).versionID == version)
        #expect(try await loader.load(old).data == Data("first".utf8))
    }

    @Test func badURLsAreInvalid() async throws {
        for text in ["s3:///key", "s3://bucket", "s3://bucket/", "s3://bad%20bucket/k"] {
            guard let url = URL(string: text) else { continue }
            let error = try #require(throws: ImageKernelError.self) { try S3Location(url: url) }
            #expect(error.code == .invalidURL, "\(text)")
        }
    }
}

/// What a single-region gateway cannot answer: a bucket in another region (HTTPTestServer's
/// `/s3-region/` route answers S3's 301 with `x-amz-bucket-region` unless signed for its region).
@Suite struct RegionTests {
    @Test func aBucketInAnotherRegionIsRetriedThereOnceAndRemembered() async throws {
        let origin = try HTTPTestServer()
        defer { origin.stop() }
        origin.addFile("img.png", data: Data("pixels".utf8))
        var configuration = S3Loader.Configuration(environment: ["AWS_REGION": "us-east-1"])
        configuration.endpoint = origin.baseURL
        configuration.credentials = StaticS3Credentials(S3Credentials(accessKeyID: "a", secretAccessKey: "b"))
        let loader = try S3Loader(configuration: configuration)
        let url = URL(string: "s3://s3-region/eu-west-3/img.png")!
        let received = Locked<[Int64]>([])
        let first = try await loader.load(ImageRequest(url: url), options: .progressiveLoad, context: ImageContext()) { progress in
            received.withLock { $0.append(progress.received) }
        }
        #expect(first.data == Data("pixels".utf8))
        // Across the refused answer and the retry, progress never goes back.
        let seen = received.withLock { $0 }
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "\(seen)")
        #expect(loader.region(for: "s3-region") == "eu-west-3")
        #expect(try await loader.load(url).data == Data("pixels".utf8))
        // One refused request, then two signed for the bucket's region.
        #expect(origin.requestCount(path: "/s3-region/eu-west-3/img.png") == 3)
        let missing = try await #require(throws: ImageKernelError.self) { try await loader.load(URL(string: "s3://s3-region/eu-west-3/none.png")!) }
        #expect(missing.code == .notFound)
    }
}
