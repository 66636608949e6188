import Foundation
import ImageKernel
import ImageKernelConformance

/// One soak run; returns the process's exit status.
enum SoakRun {
    static func run(seconds: Double, seed: UInt64) async -> Int32 {
        do {
            return try await runThrowing(seconds: seconds, seed: seed)
        } catch {
            print("soak: \(error)")
            return 1
        }
    }

    private static func runThrowing(seconds: Double, seed: UInt64) async throws -> Int32 {
        let files = try SoakOrigin.files()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ik-soak-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = SeededRandom(seed: seed)
        print("soak: \(Int(seconds)) s, seed \(seed), \(files.count) origin images")

        let deadline = ContinuousClock.now + .seconds(seconds)
        let warm = ContinuousClock.now + .seconds(seconds / 4)
        var started = 0
        var baseline: ProcessFigures?
        var finalFigures: ProcessFigures?
        var report = Soak.Counts()
        var disk = (checked: 0, wrong: [String]())
        do {
            let soak = try Soak(files: files, cacheDirectory: directory)
            repeat {
                await soak.round(width: 48, firstID: started, using: &generator)
                started += 48
                // The baseline is taken once the process has warmed up (a quarter of the run):
                // thread pools, malloc arenas and the caches' steady state are in it by then.
                if baseline == nil, ContinuousClock.now >= warm { baseline = ProcessFigures.now() }
                if ProcessInfo.processInfo.environment["SOAK_TRACE"] != nil { print("round \(started / 48): \(ProcessFigures.now())") }
            } while ContinuousClock.now < deadline
            disk = soak.checkDiskEntries()
            report = soak.counts.withLock { $0 }
            if !soak.everyLoadCompletedOnce(started: started) { report.violations.append("not every load completed exactly once") }
            soak.disk.waitUntilIdle()
            soak.loader.shutdown()
            soak.server.stop()
        }
        // Connections close on both sides a little after the loader has gone: wait up to 10 s for it.
        for _ in 0..<100 {
            finalFigures = ProcessFigures.now()
            if let baseline, finalFigures!.isBack(to: baseline, within: 0.10) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        SoakReport.print(report, disk: disk, baseline: baseline, final: finalFigures)
        let resourcesBack = baseline.flatMap { base in finalFigures.map { $0.isBack(to: base, within: 0.10) } } ?? false
        if !resourcesBack { report.violations.append("open files or resident memory did not come back within 10 %") }
        report.violations.append(contentsOf: disk.wrong.map { "disk entry \($0) differs from the origin" })
        if report.completions != report.loads { report.violations.append("\(report.loads) loads but \(report.completions) completions") }
        for violation in report.violations.prefix(20) { print("VIOLATION: \(violation)") }
        return report.violations.isEmpty ? 0 : 1
    }
}
