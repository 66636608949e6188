#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator, tuned for a render service.
///
/// A render allocates the same few buffers every time: the decoded source (360 KB for a 400x300
/// RGB photo), the resized image, the encoded bytes. By default glibc serves blocks over 128 KB
/// with a fresh `mmap` until the first such block is freed, and gives free memory at the top of
/// each arena back to the kernel once it passes twice that. Either way the next render
/// touches fresh pages, and the kernel zeroes each one in a page fault: 16 % of the CPU of a cold
/// render in `perf` (`clear_page_erms` under the resize's and the decoder's first writes).
///
/// Fixing the mmap threshold at 32 MB keeps render-sized blocks in the arenas; a trim threshold
/// of `retainedMegabytes` lets each arena keep that much free memory for the next render.
/// Blocks over 32 MB (huge sources) are still mapped and unmapped on their own.
enum MallocTuning {
    /// Applies the tuning; 0 keeps glibc's defaults. Call before the service allocates.
    static func apply(retainedMegabytes: Int) {
        #if canImport(Glibc)
        // `<malloc.h>` is not part of Swift's Glibc module: look `mallopt` up by name, with the
        // parameters' values from that header (part of glibc's ABI).
        let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3
        guard retainedMegabytes > 0, let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(mmapThreshold, 32 << 20)
        _ = mallopt(trimThreshold, Int32(min(retainedMegabytes, 1024) << 20))
        #endif
    }
}
