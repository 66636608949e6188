import Foundation
import ImageKernel

/// A one-line progress bar on standard error, drawn only when both standard output and standard
/// error are terminals; when output is piped the tool prints plain TSV and no bar. Shows the rate
/// and, when the total is known, the time left; redraws at most ten times a second.
final class ProgressBar: Sendable {
    private let total: Int
    private let enabled: Bool
    private let start = ContinuousClock.now
    private let state = Locked<(done: Int, bytes: Int64, drawn: ContinuousClock.Instant?)>((0, 0, nil))

    /// - Parameter total: the number of items, or −1 when unknown (no bar, no ETA; count and rate).
    init(total: Int, enabled: Bool = isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1) {
        self.total = total
        self.enabled = enabled && total != 0
    }

    /// Whether no bar is drawn (output is piped).
    var isQuiet: Bool { !enabled }

    func advance(bytes: Int64 = 0) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let snapshot = state.withLock { state -> (Int, Int64)? in
            state.done += 1
            state.bytes += bytes
            // Always draw the last item; otherwise at most every 100 ms.
            if state.done != total, let drawn = state.drawn, now - drawn < .milliseconds(100) { return nil }
            state.drawn = now
            return (state.done, state.bytes)
        }
        if let (done, received) = snapshot { draw(done: done, bytes: received, elapsed: now - start) }
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    private func draw(done: Int, bytes: Int64, elapsed: Duration) {
        let seconds = max(elapsed.seconds, 0.001)
        let rate = Double(done) / seconds
        var line = "\r\u{1B}[2K"
        if total > 0 {
            let width = 30
            let filled = min(width, width * done / total)
            line += "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(done)/\(total)"
        } else {
            line += "\(done)"
        }
        line += "  \(ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file))"
        line += String(format: "  %.1f/s", rate)
        if total > 0, rate > 0, done < total { line += "  ETA " + Self.clock(Double(total - done) / rate) }
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// `m:ss` or `h:mm:ss`.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
