import Foundation
import ImageKernel

/// A one-line progress bar on standard error, drawn only when both standard output and standard
/// error are terminals; when output is piped the tool prints plain TSV and no bar.
final class ProgressBar: Sendable {
    private let total: Int
    private let enabled: Bool
    private let state = Locked<(done: Int, bytes: Int64)>((0, 0))

    init(total: Int, enabled: Bool = isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1) {
        self.total = total
        self.enabled = enabled && total > 0
    }

    /// Whether no bar is drawn (output is piped).
    var isQuiet: Bool { !enabled }

    func advance(bytes: Int64 = 0) {
        guard enabled else { return }
        let (done, received) = state.withLock { state in
            state.done += 1
            state.bytes += bytes
            return (state.done, state.bytes)
        }
        draw(done: done, bytes: received)
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    private func draw(done: Int, bytes: Int64) {
        let width = 30
        let filled = total == 0 ? width : width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let line = "\r[\(bar)] \(done)/\(total)  \(ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file))"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
