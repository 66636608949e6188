import Foundation
import ImageKernel
import Testing

@Suite("Stress")
struct StressTests {
    @Test func tenThousandLoadsWithRandomCancellationsCompleteExactlyOnce() async throws {
        let loader = MemoryLoader(chunkSize: 16)
        for i in 0..<50 {
            loader.serve("s\(i)", data: RawCoder.data(width: 3, height: 3, seed: UInt8(i)), delay: .microseconds(200 * (i % 5)))
        }
        let manager = makeManager(loader: loader)
        let total = 10_000
        let completions = Locked<[Int]>(Array(repeating: 0, count: total))
        let cancelReturned = Locked<[Bool]>(Array(repeating: false, count: total))
        let imageAfterCancel = Locked(0)
        let cancelledResults = Locked(0)
        let operations = Locked<[ImageOperation?]>(Array(repeating: nil, count: total))

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<total {
                    let options: ImageOptions = i % 2 == 0 ? .fromLoaderOnly : []
                    let op = manager.loadImage(with: memURL("s\(i % 50)"), options: options) { result in
                        completions.withLock { $0[i] += 1 }
                        switch result {
                        case .success: if cancelReturned.withLock({ $0[i] }) { imageAfterCancel.withLock { $0 += 1 } }
                        case .failure(let error):
                            if error.code == .cancelled { cancelledResults.withLock { $0 += 1 } }
                        }
                    }
                    operations.withLock { $0[i] = op }
                    if i % 64 == 0 { await Task.yield() }
                }
            }
            for worker in 0..<3 {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    for _ in 0..<2_000 {
                        let i = Int.random(in: 0..<total, using: &generator)
                        if let op = operations.withLock({ $0[i] }) {
                            op.cancel()
                            cancelReturned.withLock { $0[i] = true }
                        }
                        if worker == 0 { await Task.yield() }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await eventually(.seconds(60)) { completions.withLock { $0.allSatisfy { $0 >= 1 } } })
        #expect(await eventually(.seconds(30)) { manager.runningCount == 0 }, "nothing left running")
        let counts = completions.withLock { $0 }
        #expect(counts.allSatisfy { $0 == 1 }, "every completion exactly once: \(counts.filter { $0 != 1 }.count) off")
        #expect(imageAfterCancel.value == 0, "no image after cancel")
        #expect(cancelledResults.value > 0, "some loads were really cancelled")
    }
}
