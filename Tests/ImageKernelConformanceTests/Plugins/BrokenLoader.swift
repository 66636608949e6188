import Foundation
import ImageKernel
import ImageKernelConformance

/// The memory loader with one deliberate bug, chosen to break one case of the loader suite.
struct BrokenLoader: ImageLoader {
    let breaks: LoaderConformance.Case
    private let base = MemoryLoader(files: MemoryFiles.files)
    private let inFlight = InFlight()

    init(breaking testCase: LoaderConformance.Case) { breaks = testCase }

    var name: String { base.name }

    func canLoad(_ url: URL) -> Bool {
        breaks == .canLoadItsSources ? true : base.canLoad(url)  // claims every scheme
    }

    func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext,
        progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult {
        switch breaks {
        case .loadsExpectedBytes:
            var result = try await base.load(request, options: options, context: context, progress: progress)
            result.data = result.data.dropLast()  // loses the last byte
            return result
        case .progressIsMonotonicAndFinal:
            // Reports the bytes received before each chunk, so the last report falls short.
            let previous = Locked<Int64>(0)
            return try await base.load(request, options: options, context: context) { event in
                let before = previous.withLock { value in
                    defer { value = event.received }
                    return value
                }
                progress(LoadProgress(received: before, expected: event.expected, chunk: event.chunk))
            }
        case .progressiveChunksRebuildData:
            // Passes everything received so far as the "new" chunk.
            let soFar = Locked(Data())
            return try await base.load(request, options: options, context: context) { event in
                var event = event
                if let chunk = event.chunk { event.chunk = soFar.withLock { $0.append(chunk); return $0 } }
                progress(event)
            }
        case .completesExactlyOnce:
            // Sends a last progress report after returning.
            let result = try await base.load(request, options: options, context: context, progress: progress)
            Task {
                try? await Task.sleep(for: .milliseconds(10))
                progress(LoadProgress(received: Int64(result.data.count), expected: Int64(result.data.count)))
            }
            return result
        case .cancelledBeforeLoading where Task.isCancelled:
            // Forgets a cancellation that came before the call.
            let detached = Task { () async -> Result<LoadResult, ImageKernelError> in
                do throws(ImageKernelError) {
                    return .success(try await base.load(request, options: options, context: context, progress: progress))
                } catch {
                    return .failure(error)
                }
            }
            return try await detached.value.get()
        case .cancelledWhileLoading:
            // Checks for cancellation only on entry, never while loading.
            if Task.isCancelled { throw ImageKernelError.cancelled(.load, plugin: name) }
            return await uncancellableLoad(request, options: options, progress: progress)
        case .unreachableSourceThrows:
            do { return try await base.load(request, options: options, context: context, progress: progress) } catch var error {
                error.plugin = nil  // does not say who failed
                throw error
            }
        case .concurrentLoadsAgree:
            // One shared transfer slot: a second load at the same time gets nothing.
            let overlapped = inFlight.enter()
            defer { inFlight.leave() }
            do { try await Task.sleep(for: .milliseconds(5)) } catch { throw .cancelled(.load, plugin: name) }
            let result = try await base.load(request, options: options, context: context, progress: progress)
            return overlapped ? LoadResult(data: Data(), url: result.url) : result
        default:
            return try await base.load(request, options: options, context: context, progress: progress)
        }
    }

    /// Serves the bytes without looking at cancellation; the slow source's stall is skipped
    /// once cancelled (the sleep ends early), and the rest is sent anyway.
    private func uncancellableLoad(
        _ request: ImageRequest, options: LoaderOptions, progress: @escaping @Sendable (LoadProgress) -> Void
    ) async -> LoadResult {
        let data = MemoryFiles.image
        progress(LoadProgress(received: 1000, expected: Int64(data.count)))
        if request.url.host == "slow" { try? await Task.sleep(for: .seconds(3600)) }
        progress(LoadProgress(received: Int64(data.count), expected: Int64(data.count)))
        return LoadResult(data: data, url: request.url)
    }
}
