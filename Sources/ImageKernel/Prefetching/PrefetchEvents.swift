import Foundation

/// The events of one prefetch call, as an `AsyncSequence` with backpressure: the prefetch starts
/// the next URL only while fewer than `capacity` events wait to be read, so a reader slower than
/// the loads slows the prefetch down instead of holding a growing backlog. The last element is
/// ``PrefetchEvent/completed(finished:skipped:)``.
///
/// Iterate it once. When the reading task is cancelled, or the sequence and its iterator are
/// released before the end, the prefetch is cancelled.
public struct PrefetchEvents: AsyncSequence, Sendable {
    public typealias Element = PrefetchEvent

    /// Owned by the sequence and its iterators only (never by the prefetch), so its release means
    /// nobody reads any more.
    final class Reader: Sendable {
        let channel: PrefetchEventChannel
        init(channel: PrefetchEventChannel) { self.channel = channel }
        deinit { channel.terminate() }
    }

    let reader: Reader

    init(channel: PrefetchEventChannel) { reader = Reader(channel: channel) }

    public func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    public struct Iterator: AsyncIteratorProtocol {
        let reader: Reader

        public mutating func next() async -> PrefetchEvent? {
            let channel = reader.channel
            return await withTaskCancellationHandler {
                await channel.next()
            } onCancel: {
                channel.terminate()
            }
        }
    }
}

/// The bounded queue between a prefetch (writer) and its ``PrefetchEvents`` (reader).
final class PrefetchEventChannel: Sendable {
    private struct State {
        var buffer: [PrefetchEvent] = []
        var reader: CheckedContinuation<PrefetchEvent?, Never>?
        var writers: [CheckedContinuation<Void, Never>] = []
        var finished = false
        var terminated = false
        var onTerminate: (@Sendable () -> Void)?
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// What to run once when the reader goes away (cancel the prefetch); at once if it already has.
    func onTerminate(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.terminated { return true }
            state.onTerminate = action
            return false
        }
        if now { action() }
    }

    /// Adds an event (never waits; the writer waits in ``waitForSpace()`` before starting more work).
    func yield(_ event: PrefetchEvent) {
        let reader = state.withLock { state -> CheckedContinuation<PrefetchEvent?, Never>? in
            guard !state.terminated, !state.finished else { return nil }
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            state.buffer.append(event)
            return nil
        }
        reader?.resume(returning: event)
    }

    /// No more events after those buffered.
    func finish() {
        let (reader, writers) = state.withLock { state -> (CheckedContinuation<PrefetchEvent?, Never>?, [CheckedContinuation<Void, Never>]) in
            state.finished = true
            defer { state.writers.removeAll() }
            let reader = state.buffer.isEmpty ? state.reader : nil
            if reader != nil { state.reader = nil }
            return (reader, state.writers)
        }
        reader?.resume(returning: nil)
        for writer in writers { writer.resume() }
    }

    /// The next event, waiting for one; nil after the last or once the reader went away.
    func next() async -> PrefetchEvent? {
        await withCheckedContinuation { (continuation: CheckedContinuation<PrefetchEvent?, Never>) in
            let (event, ready, writer) = state.withLock { state -> (PrefetchEvent?, Bool, CheckedContinuation<Void, Never>?) in
                if !state.buffer.isEmpty {
                    let event = state.buffer.removeFirst()
                    let writer = state.buffer.count < capacity && !state.writers.isEmpty ? state.writers.removeFirst() : nil
                    return (event, true, writer)
                }
                if state.finished || state.terminated { return (nil, true, nil) }
                state.reader = continuation
                return (nil, false, nil)
            }
            writer?.resume()
            if ready { continuation.resume(returning: event) }
        }
    }

    /// Returns once fewer than ``capacity`` events wait, or the reader went away.
    func waitForSpace() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.buffer.count < capacity || state.terminated || state.finished { return true }
                state.writers.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The reader went away: drop what waits, wake everyone, cancel the prefetch.
    func terminate() {
        let (reader, writers, action) = state.withLock { state -> (CheckedContinuation<PrefetchEvent?, Never>?, [CheckedContinuation<Void, Never>], (@Sendable () -> Void)?) in
            guard !state.terminated else { return (nil, [], nil) }
            state.terminated = true
            state.buffer.removeAll()
            defer {
                state.reader = nil
                state.writers.removeAll()
                state.onTerminate = nil
            }
            return (state.reader, state.writers, state.onTerminate)
        }
        reader?.resume(returning: nil)
        for writer in writers { writer.resume() }
        action?()
    }

    /// Events waiting to be read (for tests).
    var buffered: Int { state.withLock { $0.buffer.count } }
}
