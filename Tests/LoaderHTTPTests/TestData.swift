import Foundation

/// Locates `../shared/testdata` beside the checkout (or `$IMAGEKERNEL_TESTDATA`).
enum TestData {
    static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["IMAGEKERNEL_TESTDATA"] { return URL(fileURLWithPath: env) }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.deletingLastPathComponent().appendingPathComponent("shared/testdata")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "../shared/testdata")
    }()

    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }
    static func data(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }
}
