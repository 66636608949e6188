import Foundation

/// One download per URL and request for every variant that needs it (rule 9).
extension ImageManager {
    /// Loads the plan's bytes, joining a download of the same request already under way.
    ///
    /// The variant's job forwards progress and previews to its callers; its live priority follows
    /// the variant's callers, and the download runs at the highest priority among its variants.
    func download(plan: LoadPlan, cached: CachedHit?, job: ResultJob) async throws(ImageKernelError) -> LoadResult {
        let url = plan.url
        let registered = plan.context.loader == nil
        guard let loader = plan.context.loader ?? configuration.loaders.loader(for: url) else {
            throw ImageKernelError(stage: .load, code: .noLoader, message: "no registered loader handles \(url.absoluteString)")
        }
        let loaderOptions = LoaderOptions(plan.options, hasCachedImage: cached != nil)
        let request = ImageRequest(
            url: url, headers: plan.context.requestHeaders ?? [:],
            cachedValidators: plan.options.contains(.refreshCached) ? cached?.validators : nil)
        let retryPolicy = plan.context.retryPolicy ?? configuration.retryPolicy
        let key = DownloadWorkKey(
            request: request, loader: registered ? PartIdentity(registered: loader) : PartIdentity(loader),
            options: loaderOptions.subtracting([.lowPriority, .highPriority]),
            unique: plan.context.hasCustomValues ? .fresh() : PartIdentity(nil), retryPolicy: retryPolicy)

        let subscriber = Subscriber<LoadResult, DownloadEvent>(priority: job.priority.value) { event in
            switch event {
            case .progress(let received, let expected): job.emit(.progress(received: received, expected: expected))
            case .preview(let image): job.emit(.preview(image))
            case .retrying(let attempt, let delay, let error): job.emit(.retrying(attempt: attempt, delay: delay, error: error))
            }
        }
        let observer = job.priority.observe { subscriber.setPriority($0) }
        defer { job.priority.removeObserver(observer) }
        let context = plan.context
        let coders = plan.context.coder.map { [$0] } ?? configuration.coders.coders
        let decodeOptions = plan.decodeOptions
        let metrics = configuration.metrics
        return try await downloads.value(for: key, subscriber: subscriber) { download in
            // One retry loop for every caller of the download (rule 9): retried work stays shared.
            try await retrying(retryPolicy) { attempt, delay, error in
                metrics?.retries.increment()
                download.emit(.retrying(attempt: attempt, delay: delay, error: error))
            } attempt: { () async throws(ImageKernelError) -> LoadResult in
                var loaderContext = context
                loaderContext.loadPriority = download.priority
                let options = download.priority.value.applied(to: loaderOptions)
                // Each attempt decodes its own previews from its own bytes.
                let previewer = options.contains(.progressiveLoad) ? ProgressivePreviewer(coders: coders, options: decodeOptions) : nil
                do {
                    return try await loader.load(request, options: options, context: loaderContext) { progress in
                        download.emit(.progress(received: progress.received, expected: progress.expected))
                        guard let previewer, let chunk = progress.chunk else { return }
                        let isLast = progress.expected >= 0 && progress.received >= progress.expected
                        if let preview = previewer.append(chunk, isLast: isLast) { download.emit(.preview(preview)) }
                    }
                } catch {
                    throw ImageKernelError.wrap(error, stage: .load, plugin: loader.name)
                }
            }
        }
    }
}
