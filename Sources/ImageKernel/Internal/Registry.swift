
/// A token returned by a registry; pass it back to unregister the part it names.
public struct RegistrationToken: Hashable, Sendable {
    let id: UInt64
}

/// Newest-first list of plugins behind a lock. Lookups copy a snapshot and call plugin code
/// outside the lock, so a plugin may use the registry from inside its own calls.
final class PluginList<Element: Sendable>: Sendable {
    private struct State {
        var entries: [(token: RegistrationToken, element: Element)] = []
        var nextID: UInt64 = 1
    }
    private let state = Locked(State())

    init() {}

    func add(_ element: Element) -> RegistrationToken {
        state.withLock { state in
            let token = RegistrationToken(id: state.nextID)
            state.nextID += 1
            state.entries.insert((token, element), at: 0)
            return token
        }
    }

    @discardableResult
    func remove(_ token: RegistrationToken) -> Bool {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.token == token }) else { return false }
            state.entries.remove(at: index)
            return true
        }
    }

    func removeAll() { state.withLock { $0.entries.removeAll() } }

    /// The elements, newest first.
    var snapshot: [Element] { state.withLock { $0.entries.map { $0.element } } }
}
