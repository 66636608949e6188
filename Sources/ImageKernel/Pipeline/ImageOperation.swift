import Foundation

/// A running load started by ``ImageManager/loadImage(with:options:context:events:completion:)``.
///
/// The completion handler runs exactly once: with the result, with the failure, or — after
/// ``cancel()`` — with a `cancelled` error, never with an image. Once `cancel()` returns, no event
/// and no completion other than that cancellation is delivered.
public final class ImageOperation: Sendable, Hashable {
    /// The manager-unique identity of this operation.
    public let id: UInt64
    /// The URL the operation loads.
    public let url: URL?

    private let gate = CallbackGate()
    private let completion: @Sendable (Result<ImageResult, ImageKernelError>) -> Void
    private let events: (@Sendable (ImageLoadEvent) -> Void)?
    private let task = Locked<Task<Void, Never>?>(nil)

    init(
        id: UInt64, url: URL?, events: (@Sendable (ImageLoadEvent) -> Void)?,
        completion: @escaping @Sendable (Result<ImageResult, ImageKernelError>) -> Void
    ) {
        self.id = id
        self.url = url
        self.events = events
        self.completion = completion
    }

    /// Whether ``cancel()`` was called before the operation completed.
    public var isCancelled: Bool { gate.isCancelled }
    /// Whether the completion handler has run (or is running).
    public var isFinished: Bool { gate.isClosed }

    /// Cancels the cache query and the load. Completes the operation with a `cancelled` error
    /// unless it has completed already.
    public func cancel() {
        let delivered = gate.close(cancelled: true) {
            completion(.failure(.cancelled()))
        }
        if delivered { task.withLock { $0?.cancel() } }
    }

    func attach(_ task: Task<Void, Never>) {
        self.task.withLock { $0 = task }
        if gate.isClosed { task.cancel() }
    }

    func emit(_ event: ImageLoadEvent) {
        guard let events else { return }
        gate.whileOpen { events(event) }
    }

    func finish(_ result: Result<ImageResult, ImageKernelError>) {
        gate.close(cancelled: false) { completion(result) }
    }

    public static func == (lhs: ImageOperation, rhs: ImageOperation) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
