import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP

/// A test server and a loader talking to it; `stop()` both when done.
struct Fixture {
    let server: HTTPTestServer
    let loader: HTTPLoader
    /// The bytes served under `/files/png` (a real PNG from the test corpus).
    let png: Data
    /// The bytes served under `/files/jpeg`.
    let jpeg: Data

    init(_ configure: (inout HTTPLoader.Configuration) -> Void = { _ in }) throws {
        server = try HTTPTestServer()
        png = try TestData.data("pngsuite/basn6a08.png")
        jpeg = try TestData.data("jpeg/libjpeg-turbo/testorig.jpg")
        server.addFile("png", data: png, etag: "\"png-v1\"", lastModified: "Wed, 01 Jan 2025 00:00:00 GMT")
        server.addFile("jpeg", data: jpeg)
        var configuration = HTTPLoader.Configuration()
        configure(&configuration)
        loader = try HTTPLoader(configuration: configuration)
    }

    func stop() {
        loader.shutdown()
        server.stop()
    }

    /// Loads a path of the test server.
    func load(
        _ path: String, options: LoaderOptions = [], headers: [String: String] = [:],
        validators: CacheValidators? = nil, progress: @escaping @Sendable (LoadProgress) -> Void = { _ in }
    ) async throws -> LoadResult {
        try await loader.load(
            ImageRequest(url: server.url(path), headers: headers, cachedValidators: validators),
            options: options, context: ImageContext(), progress: progress)
    }

    /// Starts a load in its own task.
    func start(_ path: String, options: LoaderOptions = []) -> Task<LoadResult, any Error> {
        Task { try await load(path, options: options) }
    }

    /// Waits until the loader's status satisfies the condition.
    func waitForStatus(_ condition: @escaping (HTTPLoader.Status) -> Bool) async -> Bool {
        await eventually { condition(await loader.status()) }
    }
}

/// Polls `condition` every 5 ms for up to `timeout`; true as soon as it holds. A generous
/// timeout only bounds how long a failing test waits; passing tests never rely on it.
func eventually(timeout: Duration = .seconds(20), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// The error a load threw, as `ImageKernelError`; nil if it succeeded.
func loadError(_ body: () async throws -> LoadResult) async -> ImageKernelError? {
    do {
        _ = try await body()
        return nil
    } catch let error as ImageKernelError {
        return error
    } catch {
        return ImageKernelError.wrap(error, stage: .load)
    }
}

/// Collects values from callbacks on other threads.
final class Collector<Value: Sendable>: Sendable {
    private let storage = Locked<[Value]>([])

    func append(_ value: Value) { storage.withLock { $0.append(value) } }

    var values: [Value] { storage.withLock { $0 } }
}
