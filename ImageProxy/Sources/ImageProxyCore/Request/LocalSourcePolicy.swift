import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which files `local:///path` sources may read: those under a configured root directory
/// (`--local-root`), as imgproxy's `local://` does. The path is taken relative to the root
/// (`local:///photos/a.jpg` is `ROOT/photos/a.jpg`); without a root every local source is refused.
///
/// Refused with 403 `origin_not_allowed`: dot segments and encoded dots or slashes (as in URLs),
/// NUL bytes, and any path whose resolution leaves the root, so a symlink inside the root cannot
/// lead out of it. A path that does not exist (or is not a regular file) is 404 `not_found`.
///
/// The file is opened by ``LocalFileOpener`` relative to the root in one step
/// (`openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`, else an `O_NOFOLLOW` walk) and read from
/// that descriptor (``read(_:limit:)``): a symlink swapped while a request is served can make it
/// fail, never make it read a file outside the root.
public struct LocalSourcePolicy: Sendable {
    /// The URL scheme of local sources.
    public static let scheme = "local"

    /// The root's real path (no trailing `/`), nil when local sources are off.
    public let root: String?
    /// How files are opened under the root.
    public let opener: LocalFileOpener

    /// A policy for `root` (nil: local sources are off).
    /// - Throws: ``ProxyError`` 500 `invalid_configuration` for a root that is not a directory.
    public init(root: String?, opener: LocalFileOpener = LocalFileOpener()) throws(ProxyError) {
        self.opener = opener
        guard let root else {
            self.root = nil
            return
        }
        var isDirectory: ObjCBool = false
        guard let real = Self.realPath(root), FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ProxyError(status: 500, code: "invalid_configuration", message: "--local-root \(root) is not a directory")
        }
        self.root = real == "/" ? "" : real
    }

    /// Whether `url` is a local source.
    public static func isLocal(_ url: URL) -> Bool { url.scheme?.lowercased() == scheme }

    /// The real path of the file `url` names, opened under the root and closed again (the check
    /// a request gets before it is rendered; ``read(_:limit:)`` opens it once more).
    /// - Throws: ``ProxyError`` 403 `origin_not_allowed` (off, dot segments, outside the root), 404
    ///   `not_found` (no such file).
    public func resolve(_ url: URL) throws(ProxyError) -> String {
        let fd = try open(url)
        defer { close(fd) }
        guard let root, let real = LocalFileOpener.path(of: fd), real.hasPrefix(root + "/") else {
            throw .originNotAllowed("\(String(url.absoluteString.prefix(200))): resolves outside the local root")
        }
        return real
    }

    /// The bytes of the file `url` names, read from the descriptor the root-relative open gave.
    /// - Throws: ``ProxyError`` as ``resolve(_:)`` does, 413 `too_large` past `limit` bytes.
    public func read(_ url: URL, limit: Int64) throws(ProxyError) -> Data {
        let fd = try open(url)
        defer { close(fd) }
        let shown = String(url.absoluteString.prefix(200))
        let data: Data?
        do throws(LocalFileOpener.Failure) {
            data = try LocalFileOpener.read(fd, limit: limit)
        } catch {
            throw ProxyError(status: 500, code: "read_failed", message: "\(shown): reading failed (\(error))")
        }
        guard let data else { throw .tooLarge("\(shown): the file is larger than \(limit) bytes") }
        return data
    }

    /// Opens the file `url` names under the root (``LocalFileOpener``); the caller closes it.
    func open(_ url: URL) throws(ProxyError) -> Int32 {
        let shown = String(url.absoluteString.prefix(200))
        guard let root else { throw .originNotAllowed("\(shown): local sources are off (start the service with --local-root DIR)") }
        let encoded = url.path(percentEncoded: true)
        guard !OriginPolicy.hasDotSegmentOrEncodedDotOrSlash(encoded)
        else { throw .originNotAllowed("\(shown): dot segments and encoded dots or slashes are refused in source paths") }
        let path = url.path(percentEncoded: false)
        guard path.hasPrefix("/"), !path.utf8.contains(0) else { throw .originNotAllowed("\(shown): not a path under the local root") }
        switch opener.open(String(path.drop { $0 == "/" }), under: root) {
        case .success(let fd):
            return fd
        case .failure(.notFound):
            throw ProxyError(status: 404, code: "not_found", message: "\(shown): no such file under the local root")
        case .failure(.outsideRoot):
            throw .originNotAllowed("\(shown): resolves outside the local root")
        case .failure(.permissionDenied):
            throw .originNotAllowed("\(shown): the service may not read it")
        case .failure(.system(let code)):
            throw ProxyError(status: 500, code: "open_failed", message: "\(shown): open failed with errno \(code)")
        }
    }

    /// `realpath(3)`: the absolute path with every symlink, `.` and `..` resolved; nil when a
    /// component does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
