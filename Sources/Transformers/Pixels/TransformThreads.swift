/// A thread limit for every transform run in a scope, on top of each transformer's own
/// `threadLimit`.
///
/// Splitting one image's rows across cores shortens one render when cores are idle, and costs
/// CPU (hand-offs, a second core's cold caches) when they are not. A server that already runs
/// one render per core wants each render on its own thread; it cannot know that when it parses a
/// spec, only when it runs it:
///
/// ```swift
/// let image = try TransformThreads.$limit.withValue(otherRendersRunning ? 1 : nil) {
///     try spec.transform(decoded)
/// }
/// ```
///
/// The value is a task-local: it holds for the closure, on the calling thread or task, and is
/// inherited by child tasks. `nil` (the default) adds no limit.
public enum TransformThreads {
    /// At most this many threads per transform in the current scope, or nil for no extra limit.
    @TaskLocal public static var limit: Int?
}
