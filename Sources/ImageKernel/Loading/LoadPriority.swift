import Foundation

/// How urgent a load is: ``ImageOptions/lowPriority``, none, or ``ImageOptions/highPriority``.
///
/// Work that several callers share (DESIGN.md rule 9) runs at the highest priority among the
/// callers still waiting for it.
public enum LoadPriority: Int, Comparable, Sendable, CaseIterable {
    case low
    case normal
    case high

    /// The priority the options ask for (high wins over low when both are given).
    public init(_ options: ImageOptions) {
        self = options.contains(.highPriority) ? .high : options.contains(.lowPriority) ? .low : .normal
    }

    /// The priority the loader options ask for.
    public init(_ options: LoaderOptions) {
        self = options.contains(.highPriority) ? .high : options.contains(.lowPriority) ? .low : .normal
    }

    public static func < (lhs: LoadPriority, rhs: LoadPriority) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The loader options' priority bits set to this priority.
    public func applied(to options: LoaderOptions) -> LoaderOptions {
        var result = options
        result.remove([.lowPriority, .highPriority])
        switch self {
        case .low: result.insert(.lowPriority)
        case .normal: break
        case .high: result.insert(.highPriority)
        }
        return result
    }
}

/// The live priority of one shared load. It rises when a caller of higher priority joins the
/// shared work and falls back when that caller leaves.
///
/// The manager hands it to loaders as ``ImageContext/loadPriority``. A loader that queues its
/// work reads ``value`` when it queues a request and may ``observe(_:)`` it to reorder its
/// queue; a loader that ignores it still gets the starting priority through ``LoaderOptions``.
public final class LoadPriorityHandle: Sendable {
    private struct State {
        var value: LoadPriority
        var nextObserver: UInt64 = 0
        var observers: [UInt64: @Sendable (LoadPriority) -> Void] = [:]
    }
    private let state: Locked<State>

    public init(_ value: LoadPriority = .normal) {
        state = Locked(State(value: value))
    }

    /// The current priority.
    public var value: LoadPriority { state.withLock { $0.value } }

    /// Sets the priority and tells the observers when it changed.
    public func update(_ value: LoadPriority) {
        let observers = state.withLock { state -> [@Sendable (LoadPriority) -> Void] in
            guard state.value != value else { return [] }
            state.value = value
            return Array(state.observers.values)
        }
        for observer in observers { observer(value) }
    }

    /// Calls `observer` (on an arbitrary thread) with each new priority until the returned id is
    /// passed to ``removeObserver(_:)``.
    @discardableResult
    public func observe(_ observer: @escaping @Sendable (LoadPriority) -> Void) -> UInt64 {
        state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = observer
            return state.nextObserver
        }
    }

    /// Stops calling the observer registered under `id`.
    public func removeObserver(_ id: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }
}
