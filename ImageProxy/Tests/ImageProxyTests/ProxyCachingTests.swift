import CoderGIF
import CoderPNG
import CoderWebP
import Foundation
import ImageKernelTestSupport
import ImageKernel
import ImageProxyCore
import Testing

@Suite("image-proxy negotiation, validators, caching and coalescing", .serialized)
struct ProxyCachingTests {
    @Test func acceptChoosesAVIFThenWebPElseTheSourceFormat() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let path = Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:80:80")
        let cases: [(String?, String)] = [
            ("image/avif,image/webp,image/apng,image/*,*/*;q=0.8", "image/avif"),  // Chromium's img Accept
            ("image/webp,*/*", "image/webp"),
            ("image/avif;q=0,image/webp", "image/webp"),
            ("*/*", "image/jpeg"),
            (nil, "image/jpeg"),
        ]
        var etags = Set<String>()
        for (accept, type) in cases {
            let response = try await HTTP.get(proxy.url(path), headers: accept.map { ["Accept": $0] } ?? [:])
            #expect(response.status == 200)
            #expect(response.header("content-type") == type, "Accept: \(accept ?? "none")")
            #expect(response.header("vary") == "Accept")
            #expect(ImageFormat.sniff(response.body).mediaTypeForTest == type, "the bytes are what the header says")
            etags.insert(response.header("etag") ?? "")
        }
        #expect(etags.count == 3, "each format has its own ETag")
        let png = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:80:80", format: "png")), headers: ["Accept": "image/avif"])
        #expect(png.header("content-type") == "image/png", "an explicit format wins over Accept")
        #expect(Origin.requests(origin, path: "/photo.jpg") == 1, "every variant came from one download")
    }

    @Test func animatedSourcesStayAnimatedWhereTheFormatCanCarryIt() async throws {
        let origin = try Origin.start()
        let chi = "gif/pillow/chi.gif"  // 320x240, 31 frames: the image and 30 more in `frames`
        let source = origin.url(Origin.galleryName(try #require(Origin.galleryFiles.firstIndex(of: chi)), chi))
        let original = try GIFCoder().decode(try TestData.data(chi), options: DecodeOptions())
        let count = original.frameCount
        #expect(count == 31)
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let path = Paths.plain(source, spec: "resize:fill:100:80")
        // No Accept: the source's format, every frame resized, timing and loop kept.
        let gif = try await HTTP.get(proxy.url(path))
        #expect(gif.status == 200 && gif.header("content-type") == "image/gif")
        let frames = try GIFCoder().decode(gif.body, options: DecodeOptions())
        #expect(frames.frameCount == count && frames.width == 100 && frames.height == 80)
        #expect(frames.allFrames.allSatisfy { $0.image.width == 100 && $0.image.height == 80 })
        #expect(zip(frames.allFrames, original.allFrames).allSatisfy { abs($0.duration - $1.duration) < 0.011 }, "frame durations kept")
        #expect(frames.loopCount == original.loopCount)
        // Chromium's Accept: WebP, which can carry the animation, before AVIF, which cannot here.
        let webp = try await HTTP.get(proxy.url(path), headers: ["Accept": "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"])
        #expect(webp.header("content-type") == "image/webp" && webp.header("vary") == "Accept")
        // libwebp's animation encoder may merge frames that do not change; the timing stays.
        let moving = try WebPCoder().decode(webp.body, options: DecodeOptions())
        #expect(moving.frameCount > 10 && moving.frameCount <= count && moving.width == 100, "\(moving.frameCount) frames")
        let total = { (image: Image) in image.allFrames.reduce(0) { $0 + $1.duration } }
        #expect(abs(total(moving) - total(original)) < 0.05, "\(total(moving)) s against \(total(original)) s")
        // A still format gets the first frame; a still source keeps AVIF for the same Accept.
        let png = try await HTTP.get(proxy.url(Paths.plain(source, spec: "resize:fill:100:80", format: "png")))
        let still = try PNGCoder().decode(png.body, options: DecodeOptions())
        #expect(png.header("content-type") == "image/png" && !still.isAnimated && still.width == 100)
        let photo = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:80:80")), headers: ["Accept": "image/avif,image/webp"])
        #expect(photo.header("content-type") == "image/avif")
        #expect(Origin.requests(origin, path: source.path) == 1)
        // 31 enlarged frames of 1.3 MP are 40 MP in all, over the 36 MP output limit: 413.
        let huge = try await HTTP.get(proxy.url(Paths.plain(source, spec: "resize:fill:1300:1000:enlarge")))
        #expect(huge.status == 413, "\(huge.status) \(String(decoding: huge.body.prefix(200), as: UTF8.self))")
        // Over the frame budget: the first 10 frames, still animated, not an error.
        let budget = try ProxyProcess(["--allow-origin", origin.prefix, "--max-animation-frames", "10"])
        let capped = try await HTTP.get(budget.url(path))
        #expect(capped.status == 200 && capped.header("content-type") == "image/gif")
        let first = try GIFCoder().decode(capped.body, options: DecodeOptions())
        #expect(first.frameCount == 10 && first.width == 100)
        #expect(zip(first.allFrames, original.allFrames).allSatisfy { abs($0.duration - $1.duration) < 0.011 }, "the first 10 frames' durations")
    }

    /// The ETag comes from the origin's strong `ETag` where it sends one (nginx's: the file's
    /// time and size), so new validators for the same bytes give a new ETag; without one it comes
    /// from the bytes, so the same bytes give the same ETag whatever the file's time.
    @Test func theETagFollowsTheOriginsValidatorElseTheBytes() async throws {
        let origin = try Origin.start()
        func etags(_ name: String) async throws -> (origin: String, proxy: String) {
            let direct = try await HTTP.get(origin.url(name))
            // A fresh proxy each time: no cache remembers the first answer.
            let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
            let response = try await HTTP.get(proxy.url(Paths.plain(origin.url(name), spec: "resize:fill:50:50")))
            #expect(response.status == 200)
            return (direct.header("etag") ?? "", try #require(response.header("etag")))
        }
        func touch(_ name: String) throws {
            let file = origin.directory.appendingPathComponent("www/\(name)").path
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: file)
        }
        let tagged = try await etags("photo.jpg")
        #expect(tagged.origin.hasPrefix("\""), "nginx sends a strong ETag")
        try touch("photo.jpg")
        let retagged = try await etags("photo.jpg")
        #expect(retagged.origin != tagged.origin)
        #expect(retagged.proxy != tagged.proxy, "a new origin validator, a new ETag (the bytes are the same)")

        let untagged = try await etags("untagged.jpg")
        #expect(untagged.origin.isEmpty, "etag off")
        try touch("untagged.jpg")
        #expect(try await etags("untagged.jpg").proxy == untagged.proxy, "no validator: the ETag of the same bytes")
        #expect(untagged.proxy != tagged.proxy)
    }

    @Test func etagAnswers304AndChangesWithTheSpec() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let path = Paths.plain(origin.url("photo.jpg"), spec: "resize:fill:50:50")
        let first = try await HTTP.get(proxy.url(path))
        let etag = try #require(first.header("etag"))
        #expect(!etag.hasPrefix("W/"), "a strong validator")
        let again = try await HTTP.get(proxy.url(path))
        #expect(again.header("etag") == etag && again.body == first.body)
        let notModified = try await HTTP.get(proxy.url(path), headers: ["If-None-Match": "\"other\", \(etag)"])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.header("etag") == etag)
        let stale = try await HTTP.get(proxy.url(path), headers: ["If-None-Match": "\"something-else\""])
        #expect(stale.status == 200)
        let other = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fill:60:50")))
        #expect(other.header("etag") != etag)
        let head = try await HTTP.get(proxy.url(path), method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.header("etag") == etag)
    }

    @Test func hundredConcurrentRequestsOfOneUncachedURLMakeOneOriginRequest() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let path = Paths.plain(origin.url("large.jpg"), spec: "orient/resize:fill:300:200/sharpen:1")
        let responses = try await withThrowingTaskGroup(of: HTTP.Response.self) { group in
            for _ in 0..<100 { group.addTask { try await HTTP.get(proxy.url(path)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.count == 100)
        #expect(responses.allSatisfy { $0.status == 200 }, "\(Set(responses.map(\.status)))")
        #expect(Set(responses.map(\.body)).count == 1, "every caller got the same bytes")
        #expect(Origin.requests(origin, path: "/large.jpg") == 1)
        let rendered = proxy.log.split(separator: "\n").filter { $0.contains(" origin GET ") }.count
        #expect(rendered <= 100 && rendered >= 1)
        #expect(proxy.sanitizerReports.isEmpty, "\(proxy.sanitizerReports)")
    }

    /// The first request for a result renders it on its own task and the others wait for it: the
    /// first one's cancellation must cost them neither their answer nor a second origin request.
    @Test func aCancelledFirstRequestLeavesTheOthersTheirAnswer() async throws {
        let origin = try HTTPTestServer()
        defer { origin.stop() }
        origin.addFile("photo.jpg", data: try Origin.example("photo.jpg"))
        let service = try ImageProxyService(configuration: ProxyConfiguration(allowedOrigins: [origin.baseURL.absoluteString + "/"]))
        let path = service.path(for: origin.url("/gate/g/photo.jpg"), spec: "resize:fit:40:40")
        let first = Task { await service.respond(path: path, accept: nil, ifNoneMatch: nil) }
        for _ in 0..<500 where origin.requestCount(path: "/gate/g/photo.jpg") == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(origin.requestCount(path: "/gate/g/photo.jpg") == 1)
        let others = (0..<3).map { _ in Task { await service.respond(path: path, accept: nil, ifNoneMatch: nil) } }
        try await Task.sleep(for: .milliseconds(200))  // they join the render in flight
        first.cancel()
        origin.openGate("g")
        for other in others {
            let answer = await other.value
            #expect(answer.status == 200, "\(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            #expect(try JPEGSize(answer.body) == (40, 30))
        }
        let cancelled = await first.value
        #expect(cancelled.status == 200 || cancelled.status == 503, "\(cancelled.status)")
        #expect(origin.requestCount(path: "/gate/g/photo.jpg") == 1)
    }

    @Test func resultsSurviveARestartInTheCacheDirectory() async throws {
        let origin = try Origin.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = Paths.plain(origin.url("photo.heic"), spec: "resize:fit:64:64", format: "webp")
        var first: HTTP.Response
        do {
            // Every original kept on its first use (the default keeps it on its second).
            let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--cache-dir", directory.path, "--original-min-uses", "1"])
            first = try await HTTP.get(proxy.url(path))
            #expect(first.status == 200 && first.header("content-type") == "image/webp")
            proxy.stop()
        }
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--cache-dir", directory.path])
        let second = try await HTTP.get(proxy.url(path))
        #expect(second.status == 200 && second.body == first.body && second.header("etag") == first.header("etag"))
        #expect(proxy.log.contains(" disk GET "), "\(proxy.log)")
        // Another spec of the same source: rendered from the original kept on disk.
        let variant = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.heic"), spec: "resize:fit:32:32", format: "png")))
        #expect(variant.status == 200)
        #expect(proxy.log.contains(" source-disk GET "), "\(proxy.log)")
        #expect(Origin.requests(origin, path: "/photo.heic") == 1)
    }
}

@Suite("image-proxy fleet: two instances sharing Redis")
struct ProxyFleetTests {
    @Test func aSecondInstanceAnswersWithTheResultTheFirstPutInRedis() async throws {
        let origin = try Origin.start()
        let redis = try RedisServer()
        let first = try ProxyProcess(["--allow-origin", origin.prefix, "--shared-cache", redis.url])
        let second = try ProxyProcess(["--allow-origin", origin.prefix, "--shared-cache", redis.url])
        let a = try await HTTP.get(first.url(Paths.plain(origin.url("large.jpg"), spec: "resize:fit:120:120", format: "png")))
        #expect(a.status == 200)
        let b = try await HTTP.get(second.url(Paths.plain(origin.url("large.jpg"), spec: "resize:fit:120:120", format: "png")))
        #expect(b.status == 200 && b.body == a.body && b.header("etag") == a.header("etag"))
        // The result itself is shared (the first instance's render, from Redis): no render, no source.
        #expect(second.log.contains(" shared GET "), "\(second.log)")
        #expect(Origin.requests(origin, path: "/large.jpg") == 1, "the second instance never asked the origin")
        redis.kill()
        let c = try await HTTP.get(second.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:20:20")))
        #expect(c.status == 200, "without Redis the service loads from the origin")
        #expect(first.sanitizerReports.isEmpty && second.sanitizerReports.isEmpty, "\(first.sanitizerReports + second.sanitizerReports)")
    }
}

extension ImageFormat {
    var mediaTypeForTest: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
        default: rawValue
        }
    }
}
