import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

/// A body cut mid-way resumes with `Range` + `If-Range` when the server allows it, and the bytes
/// delivered are exactly the file's.
@Suite("Resumable bodies")
struct ResumeTests {
    /// 300 KB of random bytes, so a misplaced or repeated piece cannot go unnoticed.
    static let file = Data((0..<300_000).map { _ in UInt8.random(in: 0...255) })

    private func fixture() throws -> Fixture {
        let fixture = try Fixture()
        fixture.server.addFile("big", data: Self.file)
        return fixture
    }

    @Test func aBodyCutMidwayResumesWithRangeAndIfRange() async throws {
        let fixture = try fixture()
        defer { fixture.stop() }
        let received = Locked<[Int64]>([])
        let result = try await fixture.load("/resumable/big?drop=100000") { progress in received.withLock { $0.append(progress.received) } }
        #expect(result.data == Self.file, "the delivered bytes are exactly the file's")
        #expect(result.statusCode == 200, "the result reports the response it continued")
        let requests = fixture.server.requests.filter { $0.path == "/resumable/big" }
        #expect(requests.count == 2)
        #expect(requests.last?.headers["range"] == "bytes=100000-")
        #expect(requests.last?.headers["if-range"] == "\"big-300000\"")
        let progress = received.value
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 < $1 }, "progress only grows")
        #expect(progress.last == Int64(Self.file.count))
    }

    @Test func aServerThatIgnoresRangeStillGivesExactBytes() async throws {
        let fixture = try fixture()
        defer { fixture.stop() }
        let received = Locked<[Int64]>([])
        let result = try await fixture.load("/resumable/big?drop=100000&ignoreRange=1") { progress in
            received.withLock { $0.append(progress.received) }
        }
        #expect(result.data == Self.file)
        let requests = fixture.server.requests.filter { $0.path == "/resumable/big" }
        #expect(requests.count == 2)
        #expect(requests.last?.headers["range"] == "bytes=100000-", "it was asked for the rest and sent everything")
        let progress = received.value
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 < $1 }, "progress never goes back when the body starts over")
    }

    @Test func withoutAcceptRangesOrAStrongValidatorTheCutIsReported() async throws {
        let fixture = try fixture()
        defer { fixture.stop() }
        let cut = try #require(await loadError { try await fixture.load("/drop/big") })
        #expect(cut.code == .connectionLost && cut.isTransient)
        #expect(fixture.server.requestCount(path: "/drop/big") == 1, "no Accept-Ranges: not resumed")
        let weak = try #require(await loadError { try await fixture.load("/resumable/big?drop=100000&weak=1") })
        #expect(weak.code == .connectionLost)
        #expect(fixture.server.requestCount(path: "/resumable/big") == 1, "a weak ETag alone: not resumed")
    }
}
