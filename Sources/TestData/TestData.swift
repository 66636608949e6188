import Foundation

/// Locates the shared test corpora: `../shared/testdata` beside the checkout (CI clones the
/// repository with `shared/` next to it), or `$IMAGEKERNEL_TESTDATA`. Used only by test targets.
public enum TestData {
    public static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["IMAGEKERNEL_TESTDATA"] { return URL(fileURLWithPath: env) }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.deletingLastPathComponent().appendingPathComponent("shared/testdata")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "../shared/testdata")
    }()

    /// The URL of a file given relative to the corpus root (`pngsuite/basn0g01.png`).
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }
    /// The bytes of a file given relative to the corpus root.
    public static func data(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }
}
