import Foundation

/// Measures how far the process's resident set grows at its peak while a closure runs.
///
/// Linux only: the kernel's high-water mark is reset (`echo 5 > /proc/self/clear_refs`) and
/// `VmHWM − VmRSS(before)` is the growth. So that memory freed earlier and still resident cannot
/// hide an allocation, glibc is told to serve every block of 64 KiB or more with a fresh `mmap`
/// (returned to the kernel on free) and free heap is trimmed first. This tunes the test process's
/// allocator only, never its behaviour. Other threads can still add to (rarely, by freeing,
/// subtract from) a figure, so callers take the median of a few runs and check a control that
/// the probe must see as large.
/// glibc's `malloc_trim` (declared in malloc.h, which the Glibc module does not export).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32

/// glibc's `mallopt`; `M_MMAP_THRESHOLD` is -3.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32

public enum MemoryProbe {
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// True when ThreadSanitizer (or another sanitizer runtime) is loaded: its allocator and
    /// shadow memory make resident-set figures meaningless.
    public static let underSanitizer: Bool = {
        let symbols: [String] = ["__tsan_init", "__asan_init"]
        return symbols.contains { dlsym(UnsafeMutableRawPointer(bitPattern: 0), $0) != nil }
    }()

    public static func peakGrowth<T>(_ body: () throws -> T) throws -> (result: T, bytes: Int) {
        let before = try resetPeak()
        let result = try body()
        return (result, try growth(since: before))
    }

    /// ``peakGrowth(_:)`` for async work (a load): the same reset and reading around `body`.
    public static func peakGrowth<T>(async body: () async throws -> T) async throws -> (result: T, bytes: Int) {
        let before = try resetPeak()
        let result = try await body()
        return (result, try growth(since: before))
    }

    /// Tunes glibc as described above, resets the high-water mark and returns VmRSS in KiB.
    private static func resetPeak() throws -> Int {
        _ = glibcMallopt(-3, 64 * 1024)
        _ = glibcMallocTrim(0)
        guard let clear = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else {
            throw Unavailable(description: "/proc/self/clear_refs is not writable")
        }
        try clear.write(contentsOf: Data("5".utf8))
        try clear.close()
        return try statusKilobytes("VmRSS")
    }

    /// The peak's growth in bytes over `before` (KiB).
    private static func growth(since before: Int) throws -> Int {
        max(0, try statusKilobytes("VmHWM") - before) * 1024
    }

    /// The peak-memory comparison the coders' thumbnail tests make: `thumbnail` measured three
    /// times (each result checked by `check`), then `full` once. Returns the median thumbnail
    /// peak, the full decode's peak and its result, and prints the figures under `label`.
    public static func thumbnailVersusFull<T>(
        _ label: String, thumbnail: () throws -> T, check: (T) -> Void, full: () throws -> T
    ) throws -> (thumbnailPeak: Int, fullPeak: Int, full: T) {
        var peaks: [Int] = []
        for _ in 0..<3 {
            let (result, bytes) = try peakGrowth(thumbnail)
            check(result)
            peaks.append(bytes)
        }
        let (fullResult, fullPeak) = try peakGrowth(full)
        let median = peaks.sorted()[1]
        print("\(label) memory: full decode peak RSS growth \(fullPeak / 1024) KiB; thumbnail \(peaks.map { $0 / 1024 }) KiB (median \(median / 1024) KiB)")
        return (median, fullPeak, fullResult)
    }

    /// Whether this test process was started with a `--filter` naming `name`, i.e. for that
    /// suite alone rather than beside every other test of the target (the peak-memory suites
    /// run only so: tests beside them in parallel inflate the figures).
    public static func filterNames(_ name: String) -> Bool {
        let arguments = CommandLine.arguments
        return zip(arguments, arguments.dropFirst()).contains { $0 == "--filter" && $1.contains(name) }
    }

    private static func statusKilobytes(_ key: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            if let value = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first, let kb = Int(value) {
                return kb
            }
        }
        throw Unavailable(description: "no \(key) in /proc/self/status")
    }
}
