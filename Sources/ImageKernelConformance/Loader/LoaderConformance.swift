import Foundation
import ImageKernel

/// Checks an ``ImageLoader`` against the implementation requirements of the protocol.
///
/// ```swift
/// try await LoaderConformance(
///     loader: FileLoader(), url: fileURL, expectedData: bytes,
///     unreachableURL: URL(fileURLWithPath: "/nonexistent/a.png"), unreachableIsTransient: false
/// ).run()
/// ```
///
/// You provide the sources: a URL that loads ``expectedData``, a URL of the loader's kind whose
/// source cannot be reached, and optionally a slow URL whose source sends some bytes and then
/// stalls for longer than ``timeout``. Every load runs under ``timeout``, so a loader that hangs
/// fails the case instead of hanging the caller.
///
/// ## Cases
/// - ``Case/canLoadItsSources``: `canLoad` is true for every given URL and false for a URL whose
///   scheme no loader knows.
/// - ``Case/loadsExpectedBytes``: loading ``url`` returns exactly ``expectedData``, not marked
///   "not modified".
/// - ``Case/progressIsMonotonicAndFinal``: progress is reported at least once; `received` never
///   decreases and never exceeds the data; `expected` is −1 or the data's size; the last call
///   reports all bytes received.
/// - ``Case/progressiveChunksRebuildData``: with ``LoaderOptions/progressiveLoad`` the chunks in
///   progress, joined in order, are exactly the returned data.
/// - ``Case/completesExactlyOnce``: a successful load, a failing load and a cancelled load each
///   return or throw within ``timeout``, and no progress call arrives after that (the suite
///   waits ``lateProgressGrace`` to see). A continuation resumed twice traps in the Swift
///   runtime, which no suite can catch: the case sees hangs and late progress.
/// - ``Case/cancelledBeforeLoading``: `load` called from an already cancelled task throws a
///   cancellation error (``ImageKernelError`` with code `cancelled`; the protocol's typed throws
///   rule out `CancellationError`).
/// - ``Case/cancelledWhileLoading``: the task is cancelled from inside the first progress call
///   for ``slowURL`` (or ``url`` when there is none); `load` then throws a cancellation error
///   within ``timeout`` and returns no data, even if every byte had already arrived (a loader
///   must check for cancellation before it returns).
/// - ``Case/unreachableSourceThrows``: loading ``unreachableURL`` throws within ``timeout`` an
///   ``ImageKernelError`` with stage `.load`, the loader's ``ImageLoader/name`` as plugin, a code
///   other than `cancelled` or `internal`, and (when ``unreachableIsTransient`` is given) that
///   transience.
/// - ``Case/concurrentLoadsAgree``: ``concurrency`` tasks loading ``url`` at once each get
///   exactly ``expectedData``.
public struct LoaderConformance: ConformanceSuite {
    /// The cases of the loader suite; see the type's documentation for what each proves.
    public enum Case: String, CaseIterable, Sendable {
        /// `canLoad` accepts the given URLs and rejects an unknown scheme.
        case canLoadItsSources
        /// Loading the URL returns exactly the expected bytes.
        case loadsExpectedBytes
        /// Progress never goes back and ends at the full size.
        case progressIsMonotonicAndFinal
        /// Progressive chunks join to the returned data.
        case progressiveChunksRebuildData
        /// Successful, failing and cancelled loads finish, with no progress afterwards.
        case completesExactlyOnce
        /// A load from a cancelled task throws a cancellation error.
        case cancelledBeforeLoading
        /// A load cancelled from its first progress call throws a cancellation error promptly.
        case cancelledWhileLoading
        /// An unreachable source throws an attributed `.load` error promptly.
        case unreachableSourceThrows
        /// Many tasks loading at once each get the expected bytes.
        case concurrentLoadsAgree
    }

    public static let suiteName = "LoaderConformance"

    /// The loader under test.
    public let loader: any ImageLoader
    /// A URL that loads successfully.
    public let url: URL
    /// The bytes ``url`` must load.
    public let expectedData: Data
    /// A URL of the loader's kind whose source cannot be reached (missing file, closed port…).
    public let unreachableURL: URL
    /// The transience the unreachable source's error must report, or nil to not check it.
    public let unreachableIsTransient: Bool?
    /// A URL whose source sends some bytes and then stalls for longer than ``timeout``.
    public let slowURL: URL?
    /// Options for every load (``LoaderOptions/progressiveLoad`` is added where a case needs it).
    public let options: LoaderOptions
    /// The context passed to every load.
    public let context: ImageContext
    /// How many tasks the concurrency case uses.
    public let concurrency: Int
    /// The time limit of one load; a guard against hangs and a bound on "promptly".
    public let timeout: Duration
    /// How long the suite watches for progress calls after a load finished.
    public let lateProgressGrace: Duration

    /// Creates the suite.
    /// - Parameters:
    ///   - loader: The loader under test.
    ///   - url: A URL that loads `expectedData`.
    ///   - expectedData: The bytes `url` must load.
    ///   - unreachableURL: A URL of the loader's kind whose source cannot be reached.
    ///   - unreachableIsTransient: The transience its error must report; nil to not check.
    ///   - slowURL: A URL whose source stalls after some bytes, to cancel while loading.
    ///   - options: Options for every load.
    ///   - context: The context for every load.
    ///   - concurrency: Tasks in the concurrency case (default 8).
    ///   - timeout: Time limit of one load (default 10 s).
    ///   - lateProgressGrace: How long to watch for late progress (default 100 ms).
    public init(
        loader: any ImageLoader, url: URL, expectedData: Data, unreachableURL: URL, unreachableIsTransient: Bool? = nil,
        slowURL: URL? = nil, options: LoaderOptions = [], context: ImageContext = ImageContext(), concurrency: Int = 8,
        timeout: Duration = .seconds(10), lateProgressGrace: Duration = .milliseconds(100)
    ) {
        self.loader = loader
        self.url = url
        self.expectedData = expectedData
        self.unreachableURL = unreachableURL
        self.unreachableIsTransient = unreachableIsTransient
        self.slowURL = slowURL
        self.options = options
        self.context = context
        self.concurrency = max(2, concurrency)
        self.timeout = timeout
        self.lateProgressGrace = lateProgressGrace
    }

    /// Runs one case; throws a ``ConformanceFailure`` naming the case and the input that failed.
    public func run(case testCase: Case) async throws(ConformanceFailure) {
        let context = CaseContext(Self.self, testCase)
        try await context.runAsync(timeout * 4) { () async throws(ConformanceFailure) in
            switch testCase {
            case .canLoadItsSources: try checkCanLoadItsSources(context)
            case .loadsExpectedBytes: try await checkLoadsExpectedBytes(context)
            case .progressIsMonotonicAndFinal: try await checkProgressIsMonotonicAndFinal(context)
            case .progressiveChunksRebuildData: try await checkProgressiveChunksRebuildData(context)
            case .completesExactlyOnce: try await checkCompletesExactlyOnce(context)
            case .cancelledBeforeLoading: try await checkCancelledBeforeLoading(context)
            case .cancelledWhileLoading: try await checkCancelledWhileLoading(context)
            case .unreachableSourceThrows: try await checkUnreachableSourceThrows(context)
            case .concurrentLoadsAgree: try await checkConcurrentLoadsAgree(context)
            }
        }
    }

    /// One load under ``timeout``, recording progress; the recorder is told when it finished.
    func load(
        _ url: URL, options: LoaderOptions, recorder: ProgressRecorder = ProgressRecorder()
    ) async -> Deadline.Outcome<LoadResult> {
        let (loader, context) = (self.loader, self.context)
        return await Deadline.run(timeout) {
            do {
                let result = try await loader.load(ImageRequest(url: url), options: options, context: context, progress: recorder.callback)
                recorder.markFinished()
                return result
            } catch {
                recorder.markFinished()
                throw error
            }
        }
    }

    /// A load that must succeed with ``expectedData``.
    func loadExpected(
        _ context: CaseContext, options: LoaderOptions, recorder: ProgressRecorder = ProgressRecorder()
    ) async throws(ConformanceFailure) -> LoadResult {
        let input = "URL \(url.absoluteString)"
        switch await load(url, options: options, recorder: recorder) {
        case .finished(let result):
            if result.data != expectedData {
                throw context.failure(input, "loaded \(Describe.bytes("data", result.data)), expected \(Describe.bytes("data", expectedData))")
            }
            return result
        case .threw(let error):
            throw context.failure(input, "load threw", underlying: ImageKernelError.wrap(error, stage: .load))
        case .timedOut:
            throw context.failure(input, "load did not finish within \(Deadline.seconds(timeout)) s")
        }
    }
}
