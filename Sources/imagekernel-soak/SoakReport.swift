import Foundation
import ImageKernel
import ImageKernelTestSupport

/// The origin's images: PNG and JPEG files from the test data that decode, up to 200 KB each.
enum SoakOrigin {
    static func files() throws -> [(name: String, data: Data)] {
        let paths = try TestData.referencePaths { $0.hasSuffix(".png") || $0.hasSuffix(".jpg") }
        let files = try paths.prefix(60).enumerated().compactMap { index, path -> (String, Data)? in
            let data = try TestData.data(path)
            return data.count <= 200_000 ? ("\(index)-\((path as NSString).lastPathComponent)", data) : nil
        }
        guard !files.isEmpty else { throw ImageKernelError(stage: .load, code: .invalidArgument, message: "no origin images in the test data") }
        return files.map { (name: $0.0, data: $0.1) }
    }
}

/// The soak's summary, tab-separated, one figure per line.
enum SoakReport {
    static func print(_ counts: Soak.Counts, disk: (checked: Int, wrong: [String]), baseline: ProcessFigures?, final: ProcessFigures?) {
        var lines: [(String, String)] = [
            ("loads", "\(counts.loads)"), ("completions", "\(counts.completions)"), ("succeeded", "\(counts.succeeded)"),
            ("failed", "\(counts.failed)"), ("cancel_requests", "\(counts.cancelRequests)"),
            ("cancelled_results", "\(counts.cancelledResults)"), ("disk_hits", "\(counts.diskHits)"),
            ("disk_entries_checked", "\(disk.checked)"), ("disk_entries_wrong", "\(disk.wrong.count)"),
            ("baseline", baseline.map(String.init(describing:)) ?? "-"), ("final", final.map(String.init(describing:)) ?? "-"),
        ]
        lines += FaultKind.allCases.map { ("fault_\($0.rawValue)", "\(counts.kinds[$0] ?? 0)") }
        lines += counts.errorCodes.sorted { $0.key < $1.key }.map { ("error_\($0.key)", "\($0.value)") }
        for (name, value) in lines { Swift.print("\(name)\t\(value)") }
    }
}
