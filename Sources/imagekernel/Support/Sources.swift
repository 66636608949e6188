import Foundation
import ImageKernel

/// Turns command-line sources into URLs: anything with `://` is a URL, the rest a file path.
enum Sources {
    static func url(for source: String) -> URL? {
        if source.contains("://") { return URL(string: source) }
        guard !source.isEmpty else { return nil }
        return URL(fileURLWithPath: source)
    }

    /// Strips tabs and newlines so a field never breaks the TSV layout.
    static func field(_ text: String) -> String {
        text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : String($0) }.joined()
    }

    /// The error line DESIGN.md specifies: `source error <code> <message>`.
    static func errorLine(_ source: String, _ error: any Error) -> String {
        let error = ImageKernelError.wrap(error, stage: .request)
        let message = (error.plugin.map { "\($0): " } ?? "") + error.message + (error.httpStatus.map { " (HTTP \($0))" } ?? "")
        return [field(source), "error", error.code.rawValue, field(message)].joined(separator: "\t")
    }
}

/// Writes text to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
