import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

@Suite struct CoalescingTests {
    @Test func thousandConcurrentLoadsOfOneURLMakeOneRequest() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let tasks = (0..<1000).map { _ in fixture.start("/gate/thousand/png") }
        // Hold the answer until every caller is attached, so all of them must share the transfer.
        #expect(await fixture.waitForStatus { $0.tokens == 1000 })
        fixture.server.openGate("thousand")
        for task in tasks {
            let result = try await task.value
            #expect(result.data == fixture.png)
        }
        #expect(fixture.server.requestCount(path: "/gate/thousand/png") == 1)
    }

    @Test func cancellingOneOfTwoCallersLeavesTheOtherLoading() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let first = fixture.start("/gate/two/png")
        let second = fixture.start("/gate/two/png")
        #expect(await fixture.waitForStatus { $0.tokens == 2 && $0.runningTransfers == 1 })
        first.cancel()
        let error = await loadError { try await first.value }
        #expect(error?.code == .cancelled)
        #expect(error?.isTransient == true)
        #expect(await fixture.waitForStatus { $0.tokens == 1 && $0.runningTransfers == 1 })
        fixture.server.openGate("two")
        let result = try await second.value
        #expect(result.data == fixture.png)
        #expect(fixture.server.requestCount(path: "/gate/two/png") == 1)
        #expect(fixture.server.clientCloseCount(path: "/gate/two/png") == 0)
    }

    @Test func cancellingTheLastCallerClosesTheConnection() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let first = fixture.start("/gate/never/png")
        let second = fixture.start("/gate/never/png")
        #expect(await eventually { fixture.server.requestCount(path: "/gate/never/png") == 1 })
        #expect(await fixture.waitForStatus { $0.tokens == 2 })
        first.cancel()
        second.cancel()
        #expect(await loadError { try await first.value }?.code == .cancelled)
        #expect(await loadError { try await second.value }?.code == .cancelled)
        #expect(await eventually { fixture.server.clientCloseCount(path: "/gate/never/png") == 1 })
        #expect(await fixture.waitForStatus { $0 == .idle })
    }

    @Test func loadsWithDifferentHeadersOrValidatorsDoNotShareATransfer() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let plain = fixture.start("/gate/differ/png")
        let withHeader = Task { try await fixture.load("/gate/differ/png", headers: ["X-Variant": "b"]) }
        let conditional = Task { try await fixture.load("/gate/differ/png", validators: CacheValidators(etag: "\"old\"")) }
        let sameAsPlain = fixture.start("/gate/differ/png", options: [.highPriority, .progressiveLoad])
        #expect(await fixture.waitForStatus { $0.tokens == 4 })
        fixture.server.openGate("differ")
        for task in [plain, withHeader, conditional, sameAsPlain] {
            #expect(try await task.value.data == fixture.png)
        }
        #expect(fixture.server.requestCount(path: "/gate/differ/png") == 3)
    }

    @Test func aProgressiveCallerJoiningLateGetsEverythingReceivedSoFar() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let path = "/files/jpeg?hold=late"
        let earlyProgress = Collector<Int64>()
        let early = Task { try await fixture.load(path) { earlyProgress.append($0.received) } }
        // The server sent half the body and holds the rest until the gate opens.
        #expect(await eventually { earlyProgress.values.last == Int64(fixture.jpeg.count / 2) })
        let chunks = Collector<Data>()
        let late = Task {
            try await fixture.load(path, options: .progressiveLoad) { if let chunk = $0.chunk { chunks.append(chunk) } }
        }
        #expect(await fixture.waitForStatus { $0.tokens == 2 })
        #expect(await eventually { chunks.values.count == 1 })
        #expect(chunks.values.first == fixture.jpeg.prefix(fixture.jpeg.count / 2))
        fixture.server.openGate("late")
        #expect(try await early.value.data == fixture.jpeg)
        #expect(try await late.value.data == fixture.jpeg)
        #expect(chunks.values.reduce(Data(), +) == fixture.jpeg)
        #expect(fixture.server.requestCount(path: "/files/jpeg") == 1)
    }
}
