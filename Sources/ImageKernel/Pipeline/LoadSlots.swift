import Foundation

/// Keyed load slots for any owner (UIView+WebCache's idea without UIKit): starting a load in a
/// slot cancels the load that slot held, so only the latest result for a key lands.
///
/// An owner — a row model, a widget, a connection — keeps one `LoadSlots` and calls
/// ``load(_:slot:manager:options:context:events:completion:)`` for each image it shows.
public final class LoadSlots: Sendable {
    private let slots = Locked<[String: ImageOperation]>([:])

    public init() {}

    /// Starts a load in `slot`, cancelling the slot's previous load (its completion receives a
    /// `cancelled` error and it delivers nothing else).
    @discardableResult
    public func load(
        _ url: URL?, slot: String = "", manager: ImageManager, options: ImageOptions = [],
        context: ImageContext = ImageContext(), events: (@Sendable (ImageLoadEvent) -> Void)? = nil,
        completion: @escaping @Sendable (Result<ImageResult, ImageKernelError>) -> Void
    ) -> ImageOperation {
        // Cancel before starting, so the old completion can never land after the new one.
        cancel(slot: slot)
        let operation = manager.loadImage(with: url, options: options, context: context, events: events) { [weak self] result in
            completion(result)
            self?.clear(slot: slot)
        }
        let previous = slots.withLock { slots -> ImageOperation? in
            defer { if !operation.isFinished { slots[slot] = operation } }
            return slots.removeValue(forKey: slot)
        }
        previous?.cancel()
        return operation
    }

    /// The load running in `slot`, if any.
    public func operation(in slot: String = "") -> ImageOperation? { slots.withLock { $0[slot] } }

    /// Cancels the load in `slot`.
    public func cancel(slot: String = "") {
        let operation = slots.withLock { $0.removeValue(forKey: slot) }
        operation?.cancel()
    }

    /// Cancels every slot's load.
    public func cancelAll() {
        let all = slots.withLock { slots -> [ImageOperation] in
            defer { slots.removeAll() }
            return Array(slots.values)
        }
        for operation in all { operation.cancel() }
    }

    private func clear(slot: String) {
        slots.withLock { slots in
            if let op = slots[slot], op.isFinished { slots.removeValue(forKey: slot) }
        }
    }
}
