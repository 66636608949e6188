import Foundation

/// The repository's test corpora (`Tests/Corpora`): real images from public test suites with
/// reference pixel hashes (`REFERENCE*.tsv`), their origins and licences in each folder's
/// `SOURCE.txt` (summarised in the repository's `NOTICE`).
///
/// The corpora are found from this file's own place in the checkout, so tests in a clone (or in
/// SwiftPM's checkout of the package, for a plugin's tests) need nothing beside it;
/// `$IMAGEKERNEL_TESTDATA` points elsewhere (a newer copy of the corpora, say).
public enum TestData {
    /// The corpus root: `$IMAGEKERNEL_TESTDATA`, else `Tests/Corpora` of the checkout holding this file.
    public static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["IMAGEKERNEL_TESTDATA"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        // Sources/ImageKernelTestSupport/Corpora/TestData.swift -> the package root.
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent("Tests/Corpora")
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
