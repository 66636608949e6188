/// A load in progress that ``ImageManager/cancelAll()`` can cancel.
protocol CancellableLoad: Sendable {
    func cancel()
}

/// One caller of ``ImageManager``: its events, priority and exactly-once outcome.
typealias Caller = Subscriber<ImageResult, ImageLoadEvent>

extension Subscriber: CancellableLoad {}
extension ImageOperation: CancellableLoad {}

/// What a shared download tells the variants that wait for it.
enum DownloadEvent: Sendable {
    case progress(received: Int64, expected: Int64)
    case preview(Image)
    case retrying(attempt: Int, delay: Duration, error: ImageKernelError)
}
