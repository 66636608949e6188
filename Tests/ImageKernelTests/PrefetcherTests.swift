import Foundation
import ImageKernel
import Testing

@Suite("Prefetcher")
struct PrefetcherTests {
    @Test func emptyListCompletesAtOnceWithZeroCounts() {
        let prefetcher = ImagePrefetcher(manager: makeManager())
        let done = EventLog<(Int, Int)>()
        let token = prefetcher.prefetch([], completion: { done.append(($0, $1)) })
        #expect(done.count == 1, "completed before prefetch returned")
        #expect(done.all.first.map { $0 == (0, 0) } == true)
        #expect(token.isFinished)
    }

    @Test func failuresCountAsFinishedAndSkipped() async {
        let loader = MemoryLoader()
        for i in 0..<5 { loader.serve("ok\(i)", data: RawCoder.data(width: 2, height: 2)) }
        loader.serve("junk", data: Data("junk".utf8))
        let prefetcher = ImagePrefetcher(manager: makeManager(loader: loader))
        let urls: [URL?] = (0..<5).map { memURL("ok\($0)") } + [memURL("junk"), memURL("missing"), nil]
        let progress = EventLog<Int>()
        let done = EventLog<(Int, Int)>()
        prefetcher.prefetch(urls, progress: { progress.append($0.finished) }, completion: { done.append(($0, $1)) })
        #expect(await eventually { done.count == 1 })
        #expect(done.all.first.map { $0 == (8, 3) } == true, "got \(done.all)")
        #expect(progress.all == Array(1...8))
    }

    @Test func concurrencyIsLimited() async {
        let loader = MemoryLoader()
        for i in 0..<9 { loader.serve("s\(i)", data: RawCoder.data(width: 1, height: 1), delay: .milliseconds(300)) }
        let prefetcher = ImagePrefetcher(manager: makeManager(loader: loader), maxConcurrentPrefetchCount: 3)
        let done = EventLog<(Int, Int)>()
        prefetcher.prefetch((0..<9).map { memURL("s\($0)") }, completion: { done.append(($0, $1)) })
        #expect(await eventually { loader.requestCount == 3 })
        try? await Task.sleep(for: .milliseconds(100))
        #expect(loader.requestCount == 3, "no more than 3 in flight")
        #expect(await eventually { done.count == 1 })
        #expect(loader.requestCount == 9)
    }

    @Test func noCallbackAfterTokenCancel() async {
        let loader = MemoryLoader()
        for i in 0..<20 { loader.serve("s\(i)", data: RawCoder.data(width: 1, height: 1), delay: .milliseconds(20 * (i % 4))) }
        let prefetcher = ImagePrefetcher(manager: makeManager(loader: loader), maxConcurrentPrefetchCount: 4)
        let calls = EventLog<String>()
        let token = prefetcher.prefetch((0..<20).map { memURL("s\($0)") }, progress: { _ in calls.append("p") }, completion: { _, _ in calls.append("done") })
        #expect(await eventually { calls.count >= 2 })
        token.cancel()
        let seen = calls.count
        try? await Task.sleep(for: .milliseconds(400))
        #expect(calls.count == seen, "no callback after cancel")
        #expect(!calls.all.contains("done"))
        #expect(token.isCancelled)
    }

    @Test func cancellingOneTokenLeavesTheOthers() async {
        let loader = MemoryLoader()
        for i in 0..<6 { loader.serve("s\(i)", data: RawCoder.data(width: 1, height: 1), delay: .milliseconds(100)) }
        let prefetcher = ImagePrefetcher(manager: makeManager(loader: loader))
        let a = EventLog<(Int, Int)>(), b = EventLog<(Int, Int)>()
        let tokenA = prefetcher.prefetch((0..<3).map { memURL("s\($0)") }, completion: { a.append(($0, $1)) })
        prefetcher.prefetch((3..<6).map { memURL("s\($0)") }, completion: { b.append(($0, $1)) })
        tokenA.cancel()
        #expect(await eventually { b.count == 1 })
        #expect(b.all.first.map { $0 == (3, 0) } == true)
        #expect(a.count == 0)
    }

    @Test func eventsArriveAsAnAsyncSequence() async {
        let loader = MemoryLoader()
        for i in 0..<4 { loader.serve("e\(i)", data: RawCoder.data(width: 1, height: 1)) }
        let prefetcher = ImagePrefetcher(manager: makeManager(loader: loader))
        var progressCount = 0
        var completed: (Int, Int)?
        for await event in prefetcher.events(for: (0..<4).map { memURL("e\($0)") } + [memURL("none")]) {
            switch event {
            case .progress: progressCount += 1
            case .completed(let finished, let skipped): completed = (finished, skipped)
            }
        }
        #expect(progressCount == 5)
        #expect(completed.map { $0 == (5, 1) } == true)
    }

    @Test func aSlowReaderHoldsThePrefetchBack() async {
        let loader = MemoryLoader()
        for i in 0..<50 { loader.serve("b\(i)", data: RawCoder.data(width: 1, height: 1), delay: .milliseconds(2)) }
        let prefetcher = ImagePrefetcher(manager: makeManager(loader: loader), maxConcurrentPrefetchCount: 2)
        var iterator = prefetcher.events(for: (0..<50).map { memURL("b\($0)") }, bufferSize: 2).makeAsyncIterator()
        var progress = 0
        if case .progress = await iterator.next() { progress += 1 }
        // Unread events stop new loads: one read, two buffered, two in flight, one being recorded.
        #expect(await eventually { loader.requestCount >= 3 })
        try? await Task.sleep(for: .milliseconds(300))
        #expect(loader.requestCount <= 6, "\(loader.requestCount) loads started for 1 event read")
        var completed: (Int, Int)?
        while let event = await iterator.next() {
            switch event {
            case .progress: progress += 1
            case .completed(let finished, let skipped): completed = (finished, skipped)
            }
        }
        #expect(progress == 50)
        #expect(completed.map { $0 == (50, 0) } == true)
        #expect(loader.requestCount == 50)
    }

    @Test func leavingTheEventsEarlyCancelsThePrefetch() async {
        let loader = MemoryLoader()
        for i in 0..<60 { loader.serve("l\(i)", data: RawCoder.data(width: 1, height: 1), delay: .milliseconds(2)) }
        let prefetcher = ImagePrefetcher(manager: makeManager(loader: loader), maxConcurrentPrefetchCount: 2)
        var read = 0
        for await _ in prefetcher.events(for: (0..<60).map { memURL("l\($0)") }, bufferSize: 2) {
            read += 1
            if read == 3 { break }
        }
        #expect(await eventually { prefetcher.runningTokens.isEmpty }, "the prefetch was cancelled")
        let started = loader.requestCount
        try? await Task.sleep(for: .milliseconds(200))
        #expect(loader.requestCount == started && started < 12, "\(started) loads")
    }

    @Test func cancellingTheReadingTaskCancelsThePrefetch() async {
        let loader = MemoryLoader()
        for i in 0..<40 { loader.serve("t\(i)", data: RawCoder.data(width: 1, height: 1), delay: .milliseconds(50)) }
        let prefetcher = ImagePrefetcher(manager: makeManager(loader: loader), maxConcurrentPrefetchCount: 2)
        let reader = Task {
            var count = 0
            for await _ in prefetcher.events(for: (0..<40).map { memURL("t\($0)") }) { count += 1 }
            return count
        }
        #expect(await eventually { loader.requestCount >= 2 })
        reader.cancel()
        let count = await reader.value
        #expect(count < 40)
        #expect(await eventually { prefetcher.runningTokens.isEmpty })
    }

    @Test func runningTokensAreTheCallsStillRunning() async {
        let loader = MemoryLoader()
        for i in 0..<4 { loader.serve("r\(i)", data: RawCoder.data(width: 1, height: 1), delay: .milliseconds(200)) }
        let prefetcher = ImagePrefetcher(manager: makeManager(loader: loader))
        #expect(prefetcher.runningTokens.isEmpty)
        let first = prefetcher.prefetch([memURL("r0"), memURL("r1")])
        let second = prefetcher.prefetch([memURL("r2")])
        let empty = prefetcher.prefetch([])
        #expect(prefetcher.runningTokens.map(ObjectIdentifier.init) == [first, second].map(ObjectIdentifier.init), "oldest first; an empty call never runs")
        second.cancel()
        #expect(prefetcher.runningTokens.map(ObjectIdentifier.init) == [ObjectIdentifier(first)])
        #expect(await eventually { prefetcher.runningTokens.isEmpty })
        #expect(first.isFinished && !first.isCancelled && empty.isFinished)
    }
}
