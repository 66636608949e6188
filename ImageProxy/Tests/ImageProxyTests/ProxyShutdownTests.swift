import Foundation
import ImageKernelTestSupport
import Testing

/// SIGTERM drains the service: `/health` answers 503 at once, the requests in hand (renders
/// waiting on a slow source included) are answered, and the process exits 0.
@Suite("image-proxy graceful shutdown", .serialized)
struct ProxyShutdownTests {
    @Test func sigtermWith64RequestsInFlightAnswersAllOfThemAndExitsZero() async throws {
        let origin = try HTTPTestServer()
        defer { origin.stop() }
        origin.addFile("photo.jpg", data: try Origin.example("photo.jpg"))
        let proxy = try ProxyProcess([
            // Bounds far past the test's own steps, so a loaded machine (CI's sanitizer builds
            // beside it) never turns the held source into a 504 or the drain into a SIGKILL.
            "--allow-origin", origin.baseURL.absoluteString + "/", "--shutdown-grace", "10", "--shutdown-timeout", "60",
            "--source-timeout", "60",
        ])
        #expect(try await HTTP.get(proxy.url("/health")).status == 200)
        // One slow source (held at the origin until the gate opens) and 64 renders of it, each a
        // spec of its own, so all 64 are in flight on their own connections.
        let source = origin.url("/gate/slow/photo.jpg")
        let requests = (0..<64).map { i in
            Task { try await HTTP.get(proxy.url(Paths.plain(source, spec: "resize:fit:\(40 + i):\(40 + i)"))) }
        }
        try await waitUntil("the source is asked for") { origin.requestCount(path: "/gate/slow/photo.jpg") > 0 }
        try await Task.sleep(for: .milliseconds(500))  // the other requests reach the proxy

        let exit = Task { try await proxy.terminate(within: .seconds(90)) }
        // 503 while the renders are still held: during the grace, before the listener closes.
        try await waitUntil("/health answers 503") { (try? await HTTP.get(proxy.url("/health")).status) == 503 }
        origin.openGate("slow")

        var statuses: [Int] = []
        for request in requests { statuses.append(try await request.value.status) }
        #expect(statuses == Array(repeating: 200, count: 64), "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
        let status = try await exit.value
        #expect(status == 0, "exit status \(String(describing: status)): \(proxy.log.suffix(1500))")
        // The listener is closed once the grace has passed.
        await #expect(throws: (any Error).self) { try await HTTP.get(proxy.url("/health")) }
    }

    /// Polls `condition` every 10 ms for at most 10 s.
    private func waitUntil(_ what: String, _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting until \(what)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
