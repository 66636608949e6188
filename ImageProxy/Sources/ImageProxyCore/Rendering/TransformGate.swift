import Foundation
import ImageKernel

/// Bounds the renders (decode, transform, encode) running at once, with a bounded queue of
/// waiters; a render that finds the queue full is refused (503) instead of piling up.
/// Renders run on their own threads, not on Swift's cooperative pool, so the server's request
/// handling stays responsive while both cores decode; only small ones (a few milliseconds) run
/// where the request is, since handing them to a render thread and back costs a fifth of them.
final class TransformGate: Sendable {
    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    let width: Int
    let queueLimit: Int
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "image-proxy.render", attributes: .concurrent)

    init(width: Int, queueLimit: Int) {
        self.width = max(1, width)
        self.queueLimit = max(0, queueLimit)
    }

    /// Runs `work` on a render thread once a slot is free, or on the caller's thread when
    /// `inline` (a small render: the two thread hand-offs would cost more than they spare).
    /// - Throws: ``ProxyError`` 503 `busy` when `queueLimit` renders already wait.
    func run<T: Sendable>(inline: Bool = false, _ work: @escaping @Sendable () throws(ProxyError) -> T) async throws(ProxyError) -> T {
        try await acquire()
        defer { release() }
        if inline { return try work() }
        let result: Result<T, ProxyError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(ProxyError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    private func acquire() async throws(ProxyError) {
        enum Admission { case now, wait, refuse }
        let admission: Admission = state.withLock { state in
            if state.running < width { state.running += 1; return .now }
            return state.waiters.count < queueLimit ? .wait : .refuse
        }
        switch admission {
        case .now: return
        case .refuse: throw .busy("\(width) renders are running and \(queueLimit) are waiting; try again shortly")
        case .wait:
            await withCheckedContinuation { continuation in
                let admitted: Bool = state.withLock { state in
                    if state.running < width { state.running += 1; return true }
                    state.waiters.append(continuation)
                    return false
                }
                if admitted { continuation.resume() }
            }
        }
    }

    private func release() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            if state.waiters.isEmpty { state.running -= 1; return nil }
            return state.waiters.removeFirst()  // the slot passes to the waiter
        }
        next?.resume()
    }

    /// Renders running and waiting, for metrics.
    var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiters.count) } }
}
