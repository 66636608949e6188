import Foundation
import ImageKernel

/// A loader for `flaky://` URLs that fails on a pattern before it serves: attempt *n* of a URL
/// (counting from 0) fails with `error` unless `n % period == period - 1`, so every load needs
/// `period` attempts. Counts attempts per URL.
final class FlakyLoader: ImageLoader, Sendable {
    let name = "FlakyLoader"
    let period: Int
    let error: ImageKernelError
    let delay: Duration
    private let attempts = Locked<[URL: Int]>([:])
    private let data: Data

    init(period: Int, error: ImageKernelError = FlakyLoader.unavailable(), delay: Duration = .zero, data: Data = RawCoder.data(width: 2, height: 2)) {
        self.period = max(1, period)
        self.error = error
        self.delay = delay
        self.data = data
    }

    /// A 503 with an optional retry-after hint, as an HTTP loader would report it.
    static func unavailable(retryAfter: Duration? = nil) -> ImageKernelError {
        ImageKernelError(stage: .load, plugin: "FlakyLoader", code: .httpStatus, message: "503", httpStatus: 503, retryAfter: retryAfter)
    }

    var requestCount: Int { attempts.withLock { $0.values.reduce(0, +) } }
    func requestCount(for url: URL) -> Int { attempts.withLock { $0[url] ?? 0 } }

    func canLoad(_ url: URL) -> Bool { url.scheme == "flaky" }

    func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext,
        progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult {
        let attempt = attempts.withLock { state -> Int in
            defer { state[request.url, default: 0] += 1 }
            return state[request.url] ?? 0
        }
        if delay > .zero {
            do { try await Task.sleep(for: delay) } catch { throw ImageKernelError.cancelled(.load, plugin: name) }
        }
        try ImageKernelError.checkCancellation(.load, plugin: name)
        progress(LoadProgress(received: Int64(data.count / 2), expected: Int64(data.count)))
        if attempt % period != period - 1 { throw error }
        progress(LoadProgress(received: Int64(data.count), expected: Int64(data.count)))
        return LoadResult(data: data, url: request.url, statusCode: 200)
    }
}

func flakyURL(_ name: String) -> URL { URL(string: "flaky://\(name)/image.raw")! }

/// A policy that retries at once (tests do not wait for backoff unless they mean to).
let quickRetries = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2), deadline: nil)

func makeManager(flaky loader: FlakyLoader, retryPolicy: RetryPolicy = .none) -> ImageManager {
    ImageManager(configuration: .init(
        cache: MemoryCache(), loaders: LoaderRegistry([loader]), coders: CoderRegistry([RawCoder()]), retryPolicy: retryPolicy))
}
