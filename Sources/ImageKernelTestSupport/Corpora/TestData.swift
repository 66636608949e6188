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

    /// The paths of REFERENCE.tsv's decodable rows (not `ERROR`) whose path passes `include`.
    public static func referencePaths(_ include: (String) -> Bool) throws -> [String] {
        let reference = try String(contentsOf: url("REFERENCE.tsv"), encoding: .utf8)
        return reference.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            .filter { $0.count > 2 && !$0[0].hasPrefix("#") && $0[1] != "ERROR" && include($0[0]) }
            .map { $0[0] }
    }
}
