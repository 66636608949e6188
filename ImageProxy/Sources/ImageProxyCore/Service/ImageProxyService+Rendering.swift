import Foundation
import ImageKernel
import Transformers

extension ImageProxyService {
    /// The result for one source, spec, format and quality: from memory, else joined to the render
    /// already running for it, else rendered (from the results on disk, or the source) on this
    /// request's own task.
    func render(key: String, source: URL, spec: TransformSpec?, choice: OutputChoice, output: ProxyRequest.Output) async throws(ProxyError) -> (Rendered, String) {
        while true {
            if let hit = results.value(forKey: key) { return (hit, "memory") }
            let (shared, leads) = inflight.withLock { running -> (RenderInFlight, Bool) in
                if let shared = running[key] { return (shared, false) }
                let shared = RenderInFlight()
                running[key] = shared
                return (shared, true)
            }
            if leads {
                let outcome = await produce(key: key, source: source, spec: spec, choice: choice, output: output)
                inflight.withLock { _ = $0.removeValue(forKey: key) }
                shared.finish(outcome)
                return try outcome.get()
            }
            let outcome = await shared.outcome()
            // A render its own request's cancellation ended (a client gone, a server stopping) is
            // no answer for this request: it renders again, unless it was cancelled too.
            if case .failure(let error) = outcome, error.code == ImageKernelError.Code.cancelled.rawValue, !Task.isCancelled { continue }
            return try outcome.get()
        }
    }

    /// Renders the result `key` (or reads it from the results on disk, or from the shared tier
    /// once another instance of the fleet rendered it) and keeps it.
    private func produce(key: String, source: URL, spec: TransformSpec?, choice: OutputChoice, output: ProxyRequest.Output) async -> Result<(Rendered, String), ProxyError> {
        if let stored = await storedResult(key: key) {
            results.set(stored, forKey: key)
            return .success((stored, "disk"))
        }
        return await renderOnceInFleet(key: key) { await self.renderFresh(key: key, source: source, spec: spec, choice: choice, output: output) }
    }

    /// Loads the source, renders the result `key` and keeps it.
    private func renderFresh(key: String, source: URL, spec: TransformSpec?, choice: OutputChoice, output: ProxyRequest.Output) async -> Result<(Rendered, String), ProxyError> {
        do throws(ProxyError) {
            let loaded = try await loadSource(source)
            try output.sourceLimits.check(sourceBytes: loaded.data.count)
            let data = loaded.data
            // The original reaches the disk while the render runs (the other core, when there is
            // one), and before the answer, as it did when the manager stored it first; without a
            // strong validator from the origin, the digest of the source for the ETag is taken
            // there too. With neither to do, the render runs without a second task.
            let validator = loaded.strongValidator
            // Set by the pipeline's second thread when it keeps the result on disk itself.
            let keptBesideTheAnswer = Locked<Rendered?>(nil)
            let (encoded, format): (Data, ImageFormat)
            let sourceTag: Data?
            if loaded.originalKey == nil && validator != nil {
                (encoded, format) = try await render(
                    data, key: key, spec: spec, choice: choice, output: output, validator: validator, kept: keptBesideTheAnswer)
                sourceTag = nil
            } else {
                async let sourceDigest: Data? = {
                    await keepOriginal(loaded)
                    return validator == nil ? Digest.bytes(of: data) : nil
                }()
                (encoded, format) = try await render(
                    data, key: key, spec: spec, choice: choice, output: output, validator: validator, kept: keptBesideTheAnswer)
                sourceTag = await sourceDigest
            }
            let kept = keptBesideTheAnswer.withLock { $0 }
            let rendered = kept ?? Rendered(
                data: encoded, format: format, etag: Self.etag(source: sourceTag ?? Data(validator?.utf8 ?? "".utf8), key: key, format: format))
            results.set(rendered, forKey: key)
            if kept != nil {
                // The pipeline's second thread keeps it, on the other core, while this answers.
            } else if producesAlone {
                // Alone, the result reaches the disk after the answer, on a core with nothing
                // else to do; memory has it meanwhile.
                pendingStores.withLock { $0 += 1 }
                Task {
                    await self.store(rendered, key: key)
                    self.pendingStores.withLock { $0 -= 1 }
                }
            } else {
                // Beside other work it is kept before the answer, on this task: a task of its own
                // cost about as much CPU as the write (its start and a thread's wake-up); cold
                // path, same-session A/B of 6 rounds: 0.94x the time at 8 parallel, 0.97x at 64.
                await store(rendered, key: key)
            }
            return .success((rendered, loaded.from))
        } catch {
            return .failure(error)
        }
    }

    /// Decodes, transforms and encodes the source `data` into the result `key` on a render slot
    /// of the ``TransformGate``.
    private func render(
        _ data: Data, key: String, spec: TransformSpec?, choice: OutputChoice, output: ProxyRequest.Output, validator: String?, kept keptBesideTheAnswer: Locked<Rendered?>
    ) async throws(ProxyError) -> (Data, ImageFormat) {
        let limits = output.limits(over: configuration)
        let encoder = OutputEncoder(output: output, defaults: limits)
        let encodable = self.encodable
        let coders = manager.coders
        let gate = self.gate
        let pixels = SourceDimensions.pixelCount(of: data, format: ImageFormat.sniff(data))
        return try await gate.run(inline: pixels.map { $0 <= Self.inlineRenderPixels } ?? false) { () throws(ProxyError) -> (Data, ImageFormat) in
            // A render that runs alone may split its work across both cores (rows, or the
            // stages of ``PipelinedPlanarRender``); beside other renders, or other results
            // being produced (their loads come back to render soon), it keeps to its thread,
            // which costs less CPU.
            let alone = gate.load.running <= 1 && self.producesAlone
            let keep = alone ? self.keepBesideTheAnswer(key: key, validator: validator, kept: keptBesideTheAnswer) : nil
            self.renders.increment()
            let outcome = TransformThreads.$limit.withValue(alone ? nil : 1) {
                Result { () throws(ProxyError) -> (Data, ImageFormat) in
                    try ResultRender.render(
                        data, spec: spec, choice: choice, encoder: encoder, coders: coders, encodable: encodable, limits: limits, afterEncode: keep)
                }
            }
            return try outcome.get()
        }
    }

    /// For a render alone whose ETag is known before it runs (the origin sent a strong
    /// validator): the result reaches the disk from the pipeline's second thread once encoded,
    /// beside the answer instead of after it. A task started after the render was woken on the
    /// answering thread's core (the scheduler here keeps a woken thread on its waker's core) and
    /// held back the event loop's write of the answer by its own 40 µs. The result it keeps (its
    /// ETag made there, once) lands in `kept` for the answer.
    func keepBesideTheAnswer(key: String, validator: String?, kept: Locked<Rendered?>) -> PlanarRender.AfterEncode? {
        guard let validator, resultDisk != nil else { return nil }
        let maxBytes = configuration.maxOutputBytes
        return { data in
            guard data.count <= maxBytes else { return nil }
            let rendered = Rendered(data: data, format: .jpeg, etag: Self.etag(source: Data(validator.utf8), key: key, format: .jpeg))
            kept.withLock { $0 = rendered }
            self.pendingStores.withLock { $0 += 1 }
            return { decodeSucceeded in
                if decodeSucceeded { self.storeNow(rendered, key: key) }
                self.pendingStores.withLock { $0 -= 1 }
            }
        }
    }

    /// Whether one result at most is being produced (the caller's own): nothing else wants the
    /// other core, so a render may use it and a store may wait until after the answer.
    var producesAlone: Bool { inflight.withLock { $0.count } <= 1 }

    /// The largest still JPEG or PNG (pixels in its header) rendered on the request's own thread:
    /// a few milliseconds at most.
    static let inlineRenderPixels = 1 << 20
}
