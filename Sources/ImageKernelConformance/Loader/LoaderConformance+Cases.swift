import Foundation
import ImageKernel

extension LoaderConformance {
    func checkCanLoadItsSources(_ context: CaseContext) throws(ConformanceFailure) {
        for candidate in [url, unreachableURL] + (slowURL.map { [$0] } ?? []) where !loader.canLoad(candidate) {
            throw context.failure("URL \(candidate.absoluteString)", "canLoad is false for a URL the suite was told the loader handles")
        }
        if let foreign = URL(string: "conformance-unknown-scheme://example.invalid/image.png"), loader.canLoad(foreign) {
            throw context.failure("URL \(foreign.absoluteString)", "canLoad is true for a scheme no loader knows")
        }
    }

    func checkLoadsExpectedBytes(_ context: CaseContext) async throws(ConformanceFailure) {
        let result = try await loadExpected(context, options: options)
        if result.notModified {
            throw context.failure("URL \(url.absoluteString)", "an unconditional load was reported as not modified")
        }
    }

    func checkProgressIsMonotonicAndFinal(_ context: CaseContext) async throws(ConformanceFailure) {
        let recorder = ProgressRecorder()
        let result = try await loadExpected(context, options: options, recorder: recorder)
        let input = "URL \(url.absoluteString) (\(result.data.count) bytes)"
        let events = recorder.events
        guard let last = events.last else { throw context.failure(input, "no progress was reported") }
        let total = Int64(result.data.count)
        var previous: Int64 = 0
        for (index, event) in events.enumerated() {
            let at = "progress call \(index + 1) of \(events.count) (received \(event.received), expected \(event.expected))"
            if event.received < previous { throw context.failure(input, "\(at): received decreased from \(previous)") }
            if event.received > total { throw context.failure(input, "\(at): received exceeds the \(total) bytes returned") }
            if event.expected != -1 && event.expected != total {
                throw context.failure(input, "\(at): expected must be −1 or the total \(total)")
            }
            previous = event.received
        }
        if last.received != total {
            throw context.failure(input, "the last progress call reports \(last.received) bytes received, not all \(total)")
        }
    }

    func checkProgressiveChunksRebuildData(_ context: CaseContext) async throws(ConformanceFailure) {
        let recorder = ProgressRecorder()
        let result = try await loadExpected(context, options: options.union(.progressiveLoad), recorder: recorder)
        let chunks = recorder.events.compactMap(\.chunk)
        let joined = chunks.reduce(into: Data()) { $0.append($1) }
        if joined != result.data {
            throw context.failure(
                "URL \(url.absoluteString) with progressiveLoad",
                "the \(chunks.count) progress chunks join to \(Describe.bytes("chunks", joined)), not the returned \(Describe.bytes("data", result.data))")
        }
    }

    func checkCompletesExactlyOnce(_ context: CaseContext) async throws(ConformanceFailure) {
        // Success path.
        let success = ProgressRecorder()
        _ = try await loadExpected(context, options: options, recorder: success)
        try await expectNoLateProgress(success, "URL \(url.absoluteString)", context)

        // Failure path.
        let failure = ProgressRecorder()
        if case .timedOut = await load(unreachableURL, options: options, recorder: failure) {
            throw context.failure("URL \(unreachableURL.absoluteString)", "a failing load did not finish within \(Deadline.seconds(timeout)) s")
        }
        try await expectNoLateProgress(failure, "URL \(unreachableURL.absoluteString)", context)

        // Cancelled path.
        let cancelled = ProgressRecorder()
        let target = slowURL ?? url
        if case .timedOut = await loadCancelledOnFirstProgress(target, recorder: cancelled) {
            throw context.failure("URL \(target.absoluteString), cancelled", "a cancelled load did not finish within \(Deadline.seconds(timeout)) s")
        }
        try await expectNoLateProgress(cancelled, "URL \(target.absoluteString), cancelled", context)
    }

    private func expectNoLateProgress(_ recorder: ProgressRecorder, _ input: String, _ context: CaseContext) async throws(ConformanceFailure) {
        try? await Task.sleep(for: lateProgressGrace)
        let late = recorder.lateCalls
        if late > 0 { throw context.failure(input, "progress was called \(late) time(s) after load had returned or thrown") }
    }

    func checkCancelledBeforeLoading(_ context: CaseContext) async throws(ConformanceFailure) {
        let (loader, loaderContext, url, options) = (self.loader, self.context, self.url, self.options)
        let input = "URL \(url.absoluteString) from an already cancelled task"
        let outcome = await Deadline.run(timeout) {
            try await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await loader.load(ImageRequest(url: url), options: options, context: loaderContext, progress: { _ in })
            }.value
        }
        try expectCancellation(outcome, input, context)
    }

    func checkCancelledWhileLoading(_ context: CaseContext) async throws(ConformanceFailure) {
        let target = slowURL ?? url
        let input = "URL \(target.absoluteString), cancelled from the first progress call"
        let recorder = ProgressRecorder()
        let outcome = await loadCancelledOnFirstProgress(target, recorder: recorder)
        if case .finished = outcome, recorder.events.isEmpty {
            throw context.failure(input, "the load finished without any progress call, so it could not be cancelled while loading")
        }
        try expectCancellation(outcome, input, context)
    }

    /// Loads `target` in a task that is cancelled from inside the first progress call.
    func loadCancelledOnFirstProgress(_ target: URL, recorder: ProgressRecorder) async -> Deadline.Outcome<LoadResult> {
        let (loader, loaderContext, options) = (self.loader, self.context, self.options)
        return await Deadline.run(timeout) {
            let canceller = CancelOnFirstProgress()
            let task = Task {
                do {
                    let result = try await loader.load(ImageRequest(url: target), options: options, context: loaderContext) { progress in
                        canceller.fire()
                        recorder.record(progress)
                    }
                    recorder.markFinished()
                    return result
                } catch {
                    recorder.markFinished()
                    throw error
                }
            }
            canceller.attach(task)
            return try await task.value
        }
    }

    private func expectCancellation(_ outcome: Deadline.Outcome<LoadResult>, _ input: String, _ context: CaseContext) throws(ConformanceFailure) {
        switch outcome {
        case .finished(let result):
            throw context.failure(input, "a cancelled load returned \(result.data.count) bytes instead of throwing a cancellation error")
        case .threw(let error) where !error.isCancellation:
            throw context.failure(input, "a cancelled load threw something other than a cancellation error", underlying: ImageKernelError.wrap(error, stage: .load))
        case .threw:
            return
        case .timedOut:
            throw context.failure(input, "a cancelled load did not stop within \(Deadline.seconds(timeout)) s")
        }
    }

    func checkUnreachableSourceThrows(_ context: CaseContext) async throws(ConformanceFailure) {
        let input = "URL \(unreachableURL.absoluteString)"
        switch await load(unreachableURL, options: options) {
        case .finished(let result):
            throw context.failure(input, "loading an unreachable source returned \(result.data.count) bytes")
        case .timedOut:
            throw context.failure(input, "loading an unreachable source did not fail within \(Deadline.seconds(timeout)) s")
        case .threw(let error):
            guard let error = error as? ImageKernelError else {
                throw context.failure(input, "the error is not an ImageKernelError", underlying: SendableErrorBox(error))
            }
            if error.stage != .load { throw context.failure(input, "the error's stage is \(error.stage), expected load", underlying: error) }
            if error.plugin != loader.name {
                throw context.failure(
                    input, "the error's plugin is \(error.plugin.map { "'\($0)'" } ?? "nil"), expected the loader's name '\(loader.name)'",
                    underlying: error)
            }
            if error.code == .cancelled || error.code == .internalError {
                throw context.failure(input, "an unreachable source must not fail with code '\(error.code)'", underlying: error)
            }
            if let transient = unreachableIsTransient, error.isTransient != transient {
                throw context.failure(input, "the error's isTransient is \(error.isTransient), expected \(transient)", underlying: error)
            }
        }
    }

    func checkConcurrentLoadsAgree(_ context: CaseContext) async throws(ConformanceFailure) {
        let (loader, loaderContext, url, options, expected, count) = (self.loader, self.context, self.url, self.options, self.expectedData, concurrency)
        let outcome = await Deadline.run(timeout * 2) { () async -> [String] in
            await withTaskGroup(of: String?.self) { group in
                for index in 0..<count {
                    group.addTask {
                        do {
                            let result = try await loader.load(ImageRequest(url: url), options: options, context: loaderContext, progress: { _ in })
                            return result.data == expected ? nil : "task \(index) of \(count) loaded \(Describe.bytes("data", result.data))"
                        } catch {
                            return "task \(index) of \(count) threw \(error)"
                        }
                    }
                }
                return await group.reduce(into: []) { problems, problem in if let problem { problems.append(problem) } }
            }
        }
        let input = "URL \(url.absoluteString) loaded by \(count) tasks at once"
        switch outcome {
        case .finished(let problems) where problems.isEmpty: return
        case .finished(let problems): throw context.failure(input, problems.sorted().joined(separator: "; "))
        case .threw(let error): throw context.failure(input, "unexpected error", underlying: SendableErrorBox(error))
        case .timedOut: throw context.failure(input, "the loads did not finish within \(Deadline.seconds(timeout * 2)) s")
        }
    }
}
