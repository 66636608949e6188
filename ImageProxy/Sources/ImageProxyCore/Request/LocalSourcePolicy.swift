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
/// NUL bytes, and any path whose real path (every symlink resolved) is not under the root's
/// real path, so a symlink inside the root cannot lead out of it. A path that does not exist is
/// 404 `not_found`.
public struct LocalSourcePolicy: Sendable {
    /// The URL scheme of local sources.
    public static let scheme = "local"

    /// The root's real path (no trailing `/`), nil when local sources are off.
    public let root: String?

    /// A policy for `root` (nil: local sources are off).
    /// - Throws: ``ProxyError`` 500 `invalid_configuration` for a root that is not a directory.
    public init(root: String?) throws(ProxyError) {
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

    /// The real path of the file `url` names, checked to be under the root.
    /// - Throws: ``ProxyError`` 403 `origin_not_allowed` (off, dot segments, outside the root), 404
    ///   `not_found` (no such file).
    public func resolve(_ url: URL) throws(ProxyError) -> String {
        let shown = String(url.absoluteString.prefix(200))
        guard let root else { throw .originNotAllowed("\(shown): local sources are off (start the service with --local-root DIR)") }
        let encoded = url.path(percentEncoded: true)
        guard !OriginPolicy.hasDotSegmentOrEncodedDotOrSlash(encoded)
        else { throw .originNotAllowed("\(shown): dot segments and encoded dots or slashes are refused in source paths") }
        let path = url.path(percentEncoded: false)
        guard path.hasPrefix("/"), !path.utf8.contains(0) else { throw .originNotAllowed("\(shown): not a path under the local root") }
        guard let real = Self.realPath(root + path) else {
            throw ProxyError(status: 404, code: "not_found", message: "\(shown): no such file under the local root")
        }
        guard real.hasPrefix(root + "/") else {
            throw .originNotAllowed("\(shown): resolves outside the local root")
        }
        return real
    }

    /// `realpath(3)`: the absolute path with every symlink, `.` and `..` resolved; nil when a
    /// component does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
