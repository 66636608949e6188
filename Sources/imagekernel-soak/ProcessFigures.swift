import Foundation

/// glibc's `malloc_trim` (malloc.h is not in the Glibc module).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32

/// Open file descriptors and resident set of this process.
struct ProcessFigures: CustomStringConvertible {
    var openFiles: Int
    var residentKilobytes: Int

    /// Current figures, after returning free heap to the kernel.
    static func now() -> ProcessFigures {
        _ = glibcMallocTrim(0)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first }
            .flatMap { Int($0) } ?? -1
        return ProcessFigures(openFiles: files, residentKilobytes: rss)
    }

    /// Whether both figures are back within `fraction` of `baseline` (plus `slack` descriptors,
    /// since a handful of descriptors is more than 10 % of a small count).
    func isBack(to baseline: ProcessFigures, within fraction: Double, slack: Int = 2) -> Bool {
        Double(openFiles) <= Double(baseline.openFiles) * (1 + fraction) + Double(slack)
            && Double(residentKilobytes) <= Double(baseline.residentKilobytes) * (1 + fraction)
    }

    var description: String { "\(openFiles) fds, \(residentKilobytes / 1024) MiB resident" }
}
