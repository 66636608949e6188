import Foundation

/// Lets an app steer the ``ImageManager``.
///
/// ## Implementation requirements
/// `Sendable`; called from background tasks, possibly concurrently. Keep calls fast: they run
/// inside every load. Every method has a default.
public protocol ImageManagerDelegate: Sendable {
    /// Whether to load the URL after a cache miss. Default: true. A refusal fails the operation
    /// with ``ImageKernelError/Code/downloadRefused`` and does not blacklist the URL.
    func shouldDownload(_ url: URL) -> Bool
    /// Whether to add a URL that failed to the failed-URL list. Default: `!error.isTransient`.
    func shouldBlockFailedURL(_ url: URL, error: ImageKernelError) -> Bool
    /// A hook to change a freshly loaded image before it is cached; nil keeps it. Default: nil.
    func transformDownloadedImage(_ image: Image, url: URL) -> Image?
}

extension ImageManagerDelegate {
    public func shouldDownload(_ url: URL) -> Bool { true }
    public func shouldBlockFailedURL(_ url: URL, error: ImageKernelError) -> Bool { !error.isTransient }
    public func transformDownloadedImage(_ image: Image, url: URL) -> Image? { nil }
}
