import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

@Suite struct LoadingTests {
    @Test func loadsTheServedBytesWithStatusHeadersAndFinalURL() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let result = try await fixture.load("/files/png")
        #expect(result.data == fixture.png)
        #expect(result.statusCode == 200)
        #expect(result.url == fixture.server.url("/files/png"))
        #expect(result.headers["etag"] == "\"png-v1\"")
        #expect(result.validators == CacheValidators(etag: "\"png-v1\"", lastModified: "Wed, 01 Jan 2025 00:00:00 GMT"))
        #expect(result.notModified == false)
    }

    @Test func canLoadOnlyHTTPAndHTTPS() throws {
        let loader = try HTTPLoader()
        defer { loader.shutdown() }
        #expect(loader.canLoad(URL(string: "http://example.com/a.png")!))
        #expect(loader.canLoad(URL(string: "HTTPS://example.com/a.png")!))
        #expect(!loader.canLoad(URL(string: "ftp://example.com/a.png")!))
        #expect(!loader.canLoad(URL(fileURLWithPath: "/tmp/a.png")))
        #expect(loader.name == "LoaderHTTP")
    }

    @Test func progressCountsUpToTheContentLength() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let reports = Collector<LoadProgress>()
        let result = try await fixture.load("/files/jpeg?chunk=1000&pace=2") { reports.append($0) }
        let values = reports.values
        #expect(values.count > 1)
        #expect(values.allSatisfy { $0.expected == Int64(fixture.jpeg.count) && $0.chunk == nil })
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.received <= $1.received })
        #expect(values.last?.received == Int64(result.data.count))
    }

    @Test func chunkedBodyReportsUnknownExpectedLength() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let reports = Collector<LoadProgress>()
        let result = try await fixture.load("/files/jpeg?chunked=1&chunk=700&pace=2") { reports.append($0) }
        #expect(result.data == fixture.jpeg)
        #expect(!reports.values.isEmpty)
        #expect(reports.values.allSatisfy { $0.expected == -1 })
    }

    @Test func progressiveLoadHandsOverEachChunkInOrder() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let chunks = Collector<Data>()
        let result = try await fixture.load("/files/jpeg?chunk=500&pace=2", options: .progressiveLoad) { progress in
            if let chunk = progress.chunk { chunks.append(chunk) }
        }
        #expect(chunks.values.count > 1)
        #expect(chunks.values.reduce(Data(), +) == fixture.jpeg)
        #expect(result.data == fixture.jpeg)
    }

    @Test func defaultHeadersAskForImagesAndNameTheClient() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        _ = try await fixture.load("/echo-headers")
        let headers = try #require(fixture.server.requests.last?.headers)
        #expect(headers["accept"] == "image/*,*/*;q=0.8")
        #expect(headers["user-agent"]?.hasPrefix("ImageKernel/1 libcurl/") == true)
    }

    @Test func requestHeadersFilterAndModifierShapeTheRequest() async throws {
        let fixture = try Fixture { configuration in
            configuration.headers["X-Config"] = "config"
            configuration.headersFilter = { url, headers in
                var headers = headers
                headers["X-Filtered-Path"] = url.path
                return headers
            }
            configuration.requestModifier = HTTPRequestModifierBlock { request in
                var request = request
                request.headers["X-Modified"] = "yes"
                return request
            }
        }
        defer { fixture.stop() }
        var context = ImageContext()
        context.requestHeaders = ["x-request": "context"]
        _ = try await fixture.loader.load(
            ImageRequest(url: fixture.server.url("/echo-headers"), headers: ["X-Request": "request", "accept": "image/png"]),
            options: [], context: context, progress: { _ in })
        let headers = try #require(fixture.server.requests.last?.headers)
        #expect(headers["x-config"] == "config")
        #expect(headers["x-request"] == "context")
        #expect(headers["accept"] == "image/png")
        #expect(headers["x-filtered-path"] == "/echo-headers")
        #expect(headers["x-modified"] == "yes")
    }

    @Test func requestModifierReturningNilRefusesTheLoadWithoutSendingIt() async throws {
        let fixture = try Fixture { $0.requestModifier = HTTPRequestModifierBlock { _ in nil } }
        defer { fixture.stop() }
        let error = await loadError { try await fixture.load("/files/png") }
        #expect(error?.code == .downloadRefused)
        #expect(error?.isTransient == true)
        #expect(fixture.server.requestCount(path: "/files/png") == 0)
    }

    @Test func responseModifierCanAcceptOrRefuseAResponse() async throws {
        let accepting = try Fixture { configuration in
            configuration.responseModifier = HTTPResponseModifierBlock { response in
                var response = response
                if response.statusCode == 404 { response.statusCode = 200 }
                return response
            }
        }
        defer { accepting.stop() }
        let result = try await accepting.load("/status/404")
        #expect(result.statusCode == 200)
        #expect(String(decoding: result.data, as: UTF8.self) == "status 404\n")

        let refusing = try Fixture { $0.responseModifier = HTTPResponseModifierBlock { _ in nil } }
        defer { refusing.stop() }
        let error = await loadError { try await refusing.load("/files/png") }
        #expect(error?.code == .invalidResponse)
    }

    @Test func sequentialLoadsReuseOneConnection() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        for _ in 0..<10 { _ = try await fixture.load("/files/png") }
        #expect(fixture.server.requestCount(path: "/files/png") == 10)
        #expect(fixture.server.connectionCount == 1)
    }

    @Test func resultsArriveWhenTheServerDelaysTheAnswer() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let result = try await fixture.load("/files/png?delay=300")
        #expect(result.data == fixture.png)
    }
}
