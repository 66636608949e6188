import Foundation
import ImageKernelTestSupport

extension FormatsReferenceRow {
    /// The JPEG XL rows (`jxl/` and `broken/jxl/`).
    static let jxlRows: [FormatsReferenceRow] = TestData.formatsReference(under: ["jxl/", "broken/jxl/"])

    /// The JPEG XL files under `broken/jxl/`, relative to the corpus.
    static let brokenJXLFiles: [String] = {
        let root = TestData.url("broken/jxl")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { $0.pathExtension == "jxl" }
            .map { String($0.path.dropFirst(TestData.url("").path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/")) }
            .sorted()
    }()
}
