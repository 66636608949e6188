import Foundation

/// Real OS threads for concurrency cases.
///
/// Concurrency cases of synchronous plugin APIs (coders, key filters, transformers) run on
/// threads of their own rather than on tasks, so that calls truly overlap however small the
/// machine's cooperative thread pool is.
enum Threads {
    /// Runs `body(i)` for every `i` in `0..<count`, each on a new thread, all at once; returns
    /// when all have finished. Call it from a thread that may block (a case body run by
    /// ``CaseContext/runBlocking(_:_:)``), never from the cooperative pool.
    static func fanOut(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                body(index)
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
    }
}
