import Foundation
import ImageKernel

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Loads images from `file://` URLs and plain paths, streaming the file in chunks with progress.
///
/// Errors are ``ImageKernelError`` with stage `.load` and plugin `"LoaderFile"`: `notFound`,
/// `permissionDenied`, `isDirectory`, `tooLarge` (over ``Configuration/maxFileSize``) and
/// `ioError`. All are permanent except cancellation, which is code `cancelled`.
public struct FileLoader: ImageLoader {
    public struct Configuration: Sendable {
        /// Files larger than this are refused before reading. Default 64 MiB.
        public var maxFileSize: Int64
        /// Bytes read per chunk (and per progress report). Default 64 KiB.
        public var chunkSize: Int
        public init(maxFileSize: Int64 = 64 << 20, chunkSize: Int = 64 << 10) {
            self.maxFileSize = maxFileSize
            self.chunkSize = max(1, chunkSize)
        }
    }

    public var name: String { "LoaderFile" }
    public let configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// `file://` URLs and scheme-less URLs (plain paths).
    public func canLoad(_ url: URL) -> Bool {
        url.isFileURL || url.scheme == nil
    }

    public func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext,
        progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult {
        let url = request.url
        let path = url.isFileURL ? url.path : url.relativeString.removingPercentEncoding ?? url.relativeString
        guard !path.isEmpty else { throw failure(.notFound, "empty path") }
        try ImageKernelError.checkCancellation(.load, plugin: name)
        let data = try readFile(atPath: path, streaming: options.contains(.progressiveLoad), progress: progress)
        return LoadResult(data: data, url: url.isFileURL ? url : URL(fileURLWithPath: path))
    }

    private func readFile(atPath path: String, streaming: Bool, progress: @Sendable (LoadProgress) -> Void) throws(ImageKernelError) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw errnoFailure(errno, path: path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw errnoFailure(errno, path: path) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw failure(.isDirectory, "\(path) is a directory") }
        let size = Int64(info.st_size)
        if size > configuration.maxFileSize {
            throw failure(.tooLarge, "\(path) is \(size) bytes; the limit is \(configuration.maxFileSize)")
        }
        let expected = (info.st_mode & S_IFMT) == S_IFREG ? size : -1
        var data = Data(capacity: expected > 0 ? Int(expected) : configuration.chunkSize)
        var chunk = [UInt8](repeating: 0, count: configuration.chunkSize)
        while true {
            if Task.isCancelled { throw ImageKernelError.cancelled(.load, plugin: name) }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw errnoFailure(errno, path: path)
            }
            if n == 0 { break }
            let piece = chunk[0..<n]
            data.append(contentsOf: piece)
            if Int64(data.count) > configuration.maxFileSize {
                throw failure(.tooLarge, "\(path) grew past the limit of \(configuration.maxFileSize) bytes")
            }
            progress(LoadProgress(received: Int64(data.count), expected: expected, chunk: streaming ? Data(piece) : nil))
        }
        if data.isEmpty { progress(LoadProgress(received: 0, expected: expected)) }
        if Task.isCancelled { throw ImageKernelError.cancelled(.load, plugin: name) }
        return data
    }

    private func failure(_ code: ImageKernelError.Code, _ message: String) -> ImageKernelError {
        ImageKernelError(stage: .load, plugin: name, code: code, message: message)
    }

    private func errnoFailure(_ number: Int32, path: String) -> ImageKernelError {
        let reason = String(cString: strerror(number))
        switch number {
        case ENOENT, ENOTDIR: return failure(.notFound, "\(path): \(reason)")
        case EACCES, EPERM: return failure(.permissionDenied, "\(path): \(reason)")
        case EISDIR: return failure(.isDirectory, "\(path): \(reason)")
        default: return failure(.ioError, "\(path): \(reason) (errno \(number))")
        }
    }
}
