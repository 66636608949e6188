import Foundation

/// The ordered list of loaders; the most recently registered one is asked first. Safe to use from
/// any thread; loader code is never called while the registry's lock is held.
public final class LoaderRegistry: Sendable {
    private let list = PluginList<any ImageLoader>()

    /// An empty registry.
    public init() {}

    /// A registry holding these loaders; the last one is asked first.
    public convenience init(_ loaders: [any ImageLoader]) {
        self.init()
        for loader in loaders { register(loader) }
    }

    /// Adds a loader in front of the others. Keep the token to unregister it.
    @discardableResult
    public func register(_ loader: any ImageLoader) -> RegistrationToken { list.add(loader) }

    /// Removes the loader the token names. Returns false if it was already removed.
    @discardableResult
    public func unregister(_ token: RegistrationToken) -> Bool { list.remove(token) }

    /// The registered loaders, newest first.
    public var loaders: [any ImageLoader] { list.snapshot }

    /// The first loader (newest first) that can load the URL.
    public func loader(for url: URL) -> (any ImageLoader)? {
        loaders.first { $0.canLoad(url) }
    }
}
