import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

/// `Retry-After` on 429 and 503 becomes the error's retry hint, which the manager's retry policy
/// honours; permanent statuses are never retried.
@Suite("Retry-After")
struct RetryAfterTests {
    @Test func retryAfterInSecondsBecomesTheHint() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/status/429?Retry-After=7") })
        #expect(error.retryAfter == .seconds(7))
        let unavailable = try #require(await loadError { try await fixture.load("/status/503?Retry-After=2") })
        #expect(unavailable.retryAfter == .seconds(2))
    }

    @Test func retryAfterAsAnHTTPDateBecomesTheTimeLeftUntilThatDate() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let date = httpDate(Date().addingTimeInterval(30))
        let path = "/status/503?Retry-After=" + date.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let error = try #require(await loadError { try await fixture.load(path) })
        let hint = try #require(error.retryAfter, "an HTTP date \(date) is understood")
        // Whole seconds on the wire, and the test may be slow: anything from 1 s to 30 s is right.
        #expect(hint > .seconds(1) && hint <= .seconds(30), "\(hint)")
        let past = "/status/429?Retry-After=" + "Sun, 06 Nov 1994 08:49:37 GMT".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try #require(await loadError { try await fixture.load(past) }).retryAfter == .zero)
    }

    @Test func retryAfterIsIgnoredOnOtherStatusesAndWhenUnreadable() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        #expect(try #require(await loadError { try await fixture.load("/status/500?Retry-After=5") }).retryAfter == nil)
        #expect(try #require(await loadError { try await fixture.load("/status/429?Retry-After=soon") }).retryAfter == nil)
    }

    @Test func managerRetriesA429AfterRetryAfterAndDeliversTheFile() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let manager = retryingManager(fixture, attempts: 3)
        let delays = Locked<[Duration]>([])
        let result = try await manager.image(for: fixture.server.url("/flaky/1/png?status=429&Retry-After=1"), options: .avoidDecode) { event in
            if case .retrying(_, let delay, _) = event { delays.withLock { $0.append(delay) } }
        }
        #expect(result.data == fixture.png)
        #expect(delays.value.count == 1)
        #expect(delays.value.allSatisfy { $0 >= .seconds(1) }, "waited for Retry-After, not the 1 ms backoff: \(delays.value)")
        #expect(fixture.server.requestCount(path: "/flaky/1/png") == 2)
    }

    @Test func permanent404IsNotRetried() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let manager = retryingManager(fixture, attempts: 5)
        await #expect(throws: ImageKernelError.self) {
            try await manager.image(for: fixture.server.url("/status/404"), options: .avoidDecode)
        }
        #expect(fixture.server.requestCount(path: "/status/404") == 1)
    }

    /// A manager over the fixture's loader that retries at once (1 ms backoff) unless told to wait.
    private func retryingManager(_ fixture: Fixture, attempts: Int) -> ImageManager {
        ImageManager(configuration: .init(
            loaders: LoaderRegistry([fixture.loader]), coders: CoderRegistry(),
            retryPolicy: RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1), deadline: nil)))
    }

    private func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
