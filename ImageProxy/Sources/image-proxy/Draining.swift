import Logging
import ServiceLifecycle
import Synchronization

/// Whether the service is stopping: from the moment SIGTERM (or SIGINT) arrives, `/health`
/// answers 503 so that a load balancer stops sending new requests.
final class DrainState: Sendable {
    private let draining = Atomic<Bool>(false)

    /// True once a graceful shutdown has begun.
    var isDraining: Bool { draining.load(ordering: .acquiring) }

    func begin() { draining.store(true, ordering: .releasing) }
}

/// The service a graceful shutdown reaches first (it is the last of the group, and a
/// `ServiceGroup` shuts its services down in reverse order): it marks the state draining at once,
/// then waits `grace` before it returns, and only then does the group stop the HTTP server, which
/// closes the listener and lets the requests in hand finish.
struct DrainService: Service {
    let state: DrainState
    let grace: Duration
    let logger: Logger

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return  // cancelled: the group is stopping without a drain
        }
        state.begin()
        logger.notice("stopping: /health answers 503, the listener closes in \(grace), requests in hand finish")
        try? await Task.sleep(for: grace)
    }
}
