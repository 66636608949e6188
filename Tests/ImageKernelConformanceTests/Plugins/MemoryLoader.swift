import Foundation
import ImageKernel

/// A loader for `memory://` URLs serving bytes from a dictionary in chunks, with progress.
///
/// - `memory://files/<name>` serves the file named `<name>`.
/// - `memory://slow/<name>` sends the first chunk and then stalls for an hour.
/// - Any other host is unreachable (`notFound`, permanent).
struct MemoryLoader: ImageLoader {
    let files: [String: Data]
    var chunkSize = 1000

    var name: String { "MemoryLoader" }

    func canLoad(_ url: URL) -> Bool { url.scheme == "memory" }

    func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext,
        progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult {
        try checkCancellation()
        let url = request.url
        let name = String(url.path.dropFirst())
        guard url.host == "files" || url.host == "slow", let data = files[name] else {
            throw ImageKernelError(stage: .load, plugin: self.name, code: .notFound, message: "no file \(url.absoluteString)")
        }
        var received = Data()
        var offset = 0
        while offset < data.count {
            let chunk = data[offset..<min(data.count, offset + chunkSize)]
            offset += chunk.count
            received.append(chunk)
            progress(LoadProgress(
                received: Int64(received.count), expected: Int64(data.count),
                chunk: options.contains(.progressiveLoad) ? Data(chunk) : nil))
            if url.host == "slow" {
                do { try await Task.sleep(for: .seconds(3600)) } catch { throw ImageKernelError.cancelled(.load, plugin: name) }
            }
            await Task.yield()
            try checkCancellation()
        }
        try checkCancellation()
        return LoadResult(data: received, url: url)
    }

    private func checkCancellation() throws(ImageKernelError) {
        if Task.isCancelled { throw ImageKernelError.cancelled(.load, plugin: name) }
    }
}

enum MemoryFiles {
    static let image = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) })
    static let files = ["image.bin": image]
    static let url = URL(string: "memory://files/image.bin")!
    static let unreachable = URL(string: "memory://nowhere/image.bin")!
    static let slow = URL(string: "memory://slow/image.bin")!
}
