#if canImport(Glibc)
import Glibc
#endif

/// Keeps the two stages of ``PipelinedPlanarRender`` on different CPUs.
///
/// On the benchmark machine (a two-CPU virtual machine, Linux 6.18) the scheduler wakes a
/// thread on its waker's CPU nine times in ten even when the other CPU is idle (`perf sched`
/// events of one cold request at a time: 2,489 of 2,866 wake-ups); a pipeline's second stage
/// then waits for the decode it should run beside. The second stage moves itself off the
/// decode's CPU with `sched_setaffinity` for the render and takes its old mask back after.
///
/// `sched_getcpu` and `sched_setaffinity` are GNU extensions that Swift's Glibc module does not
/// show; they are looked up by name (part of glibc's ABI).
public enum CPUPlacement {
    private typealias GetCPU = @convention(c) () -> Int32
    private typealias Affinity = @convention(c) (Int32, Int, UnsafeMutableRawPointer) -> Int32

    private static let functions: (getCPU: GetCPU, get: Affinity, set: Affinity)? = {
        #if os(Linux)
        let all = UnsafeMutableRawPointer(bitPattern: 0)
        guard let getCPU = dlsym(all, "sched_getcpu"), let get = dlsym(all, "sched_getaffinity"),
              let set = dlsym(all, "sched_setaffinity")
        else { return nil }
        return (unsafeBitCast(getCPU, to: GetCPU.self), unsafeBitCast(get, to: Affinity.self), unsafeBitCast(set, to: Affinity.self))
        #else
        return nil
        #endif
    }()

    /// The CPU the calling thread runs on, or nil.
    public static func currentCPU() -> Int32? {
        guard let cpu = functions?.getCPU(), cpu >= 0 else { return nil }
        return cpu
    }

    /// A thread's CPU mask (`cpu_set_t`: 1024 bits).
    public struct Mask: Sendable {
        fileprivate var words = [UInt64](repeating: 0, count: 16)
    }

    /// Moves the calling thread off `cpu`, onto the other CPUs its mask allows; returns the mask
    /// to give back to ``restore(_:)``, or nil when nothing changed (no other CPU allowed, or
    /// the calls are missing).
    public static func leave(_ cpu: Int32) -> Mask? {
        guard let functions, cpu >= 0, cpu < 1024 else { return nil }
        var saved = Mask()
        let byteCount = saved.words.count * 8
        guard saved.words.withUnsafeMutableBytes({ functions.get(0, byteCount, $0.baseAddress!) }) == 0 else { return nil }
        var moved = saved
        let word = Int(cpu) / 64, bit = UInt64(1) << UInt64(cpu % 64)
        guard moved.words[word] & bit != 0 else { return nil }
        moved.words[word] &= ~bit
        guard moved.words.contains(where: { $0 != 0 }),
              moved.words.withUnsafeMutableBytes({ functions.set(0, byteCount, $0.baseAddress!) }) == 0
        else { return nil }
        return saved
    }

    /// Gives the calling thread back the mask ``leave(_:)`` returned.
    public static func restore(_ mask: Mask) {
        guard let functions else { return }
        var mask = mask
        _ = mask.words.withUnsafeMutableBytes { functions.set(0, $0.count, $0.baseAddress!) }
    }
}
