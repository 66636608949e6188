import Foundation
#if canImport(Glibc)
import Glibc
let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
#else
let RUSAGE_SELF_WHO = RUSAGE_SELF
#endif

/// Timing helpers shared by the benchmark executables.
public enum Measure {
    /// Runs `body` `iterations` times after `warmup` runs and returns the per-run durations in seconds.
    public static func samples(iterations: Int, warmup: Int = 1, _ body: () throws -> Void) rethrows -> [Double] {
        for _ in 0..<warmup { try body() }
        var result: [Double] = []
        result.reserveCapacity(iterations)
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            let elapsed = try clock.measure { try body() }
            result.append(seconds(elapsed))
        }
        return result
    }

    /// Async variant of ``samples(iterations:warmup:_:)``.
    public static func samples(iterations: Int, warmup: Int = 1, _ body: () async throws -> Void) async rethrows -> [Double] {
        for _ in 0..<warmup { try await body() }
        var result: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            let start = clock.now
            try await body()
            result.append(seconds(clock.now - start))
        }
        return result
    }

    /// Operations per second of `clients` concurrent tasks doing `perTask` operations each;
    /// `operation(client, step)` returns false for a failed one, and any failure throws.
    public static func rate(clients: Int, perTask: Int, _ operation: @escaping @Sendable (Int, Int) async -> Bool) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let failures = await withTaskGroup(of: Int.self) { group in
            for client in 0..<clients {
                group.addTask {
                    var failures = 0
                    for step in 0..<perTask where await !operation(client, step) { failures += 1 }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        guard failures == 0 else { throw BenchError("\(failures) of \(clients * perTask) operations failed") }
        return Double(perTask * clients) / seconds(clock.now - start)
    }

    public static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    public static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// Median seconds of `ours` and `baseline`, measured in alternating rounds (after one warm-up
    /// run each) so that both see the same machine load (the machine is shared).
    public static func paired(rounds: Int, ours: () -> Void, baseline: () -> Void) -> (ours: Double, baseline: Double) {
        ours()
        baseline()
        let clock = ContinuousClock()
        var a: [Double] = [], b: [Double] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                a.append(seconds(clock.measure(ours)))
                b.append(seconds(clock.measure(baseline)))
            } else {
                b.append(seconds(clock.measure(baseline)))
                a.append(seconds(clock.measure(ours)))
            }
        }
        return (median(a), median(b))
    }

    /// The peak resident set of this process so far, in MB: `VmHWM` of `/proc/self/status` on
    /// Linux, else `getrusage`'s `ru_maxrss`.
    ///
    /// Not `ru_maxrss` on Linux: the kernel folds the high-water mark of the address space a
    /// process had before its `execve` into it (`exec_mmap()` calls
    /// `setmax_mm_hiwater_rss(&signal->maxrss, old_mm)`). A child started with `posix_spawn`
    /// (Foundation's `Process`) or `vfork` execs from its parent's address space, so its
    /// `ru_maxrss` is at least the parent's peak so far: bench-bulk's children reported 48 MB
    /// after the parent had deleted a cache directory of 10^5 files, while their own peak was
    /// 35 MB. `VmHWM` is the same high-water mark without the pre-exec part.
    public static func peakRSSMegabytes() -> Double {
        statusMegabytes("VmHWM") ?? rusageMaxRSSMegabytes()
    }

    /// `getrusage(RUSAGE_SELF)`'s `ru_maxrss` in MB, which on Linux includes the peak of the
    /// parent's address space when this process was started by `posix_spawn` or `vfork` (see
    /// ``peakRSSMegabytes()``).
    public static func rusageMaxRSSMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF_WHO, &usage)
        return Double(usage.ru_maxrss) / 1024
    }

    /// A size field of `/proc/self/status` (`VmHWM`, `VmRSS`, `RssAnon`, …) in MB; nil where
    /// there is no such file (not Linux) or no such field.
    public static func statusMegabytes(_ key: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            if let value = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first, let kilobytes = Double(value) {
                return kilobytes / 1024
            }
        }
        return nil
    }

    /// CPU seconds (user + system) used by this process so far.
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF_WHO, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

/// Prints one result line: `name  ours  baseline  ratio  goal`.
public func report(_ name: String, ours: Double, baseline: Double, unit: String = "s", higherIsBetter: Bool = false, goal: String = "") {
    let ratio = higherIsBetter ? ours / baseline : baseline / ours
    print(String(format: "%-48@ ours %10.6f %@  baseline %10.6f %@  ratio %.3fx  %@", name as NSString, ours, unit as NSString, baseline, unit as NSString, ratio, goal as NSString))
}

extension Measure {
    /// CPU seconds (user + system) used by this process's waited-for children so far.
    public static func childCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        #else
        getrusage(RUSAGE_CHILDREN, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

/// The repository's corpora, `Tests/Corpora` of this checkout (or `$IMAGEKERNEL_TESTDATA`): what
/// the benchmarks read.
public func testDataRoot() -> URL {
    if let env = ProcessInfo.processInfo.environment["IMAGEKERNEL_TESTDATA"], !env.isEmpty { return URL(fileURLWithPath: env) }
    return benchmarksDirectory().deletingLastPathComponent().appendingPathComponent("Tests/Corpora")
}
