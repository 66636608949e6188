import CJXL
import Foundation
import ImageKernel

/// One libjxl decoder with its memory budget and its thread pool, destroyed together.
///
/// libjxl 0.7 allocates its decoder state, boxes, ICC and JPEG-reconstruction data through
/// ``cjxl_memory_manager``: at most ``headerBudget`` bytes until the basic info is known, then
/// ``frameBudget(canvas:)``; an allocation over the budget fails inside libjxl, which reports an
/// error (never a crash), reported as `pixelLimitExceeded`. Its image planes are allocated
/// outside the manager (0.7's cache-aligned allocator): those are bounded by the pixel limit,
/// checked from the header before any frame is rendered. Worker threads come from
/// `JxlThreadParallelRunner` with a fixed count (see ``JXLCoder/threads``), created and joined by
/// each decode: no pool outlives a call.
final class JXLSession {
    /// What libjxl may hold before the header is read: the header, an ICC profile, a TOC.
    static let headerBudget = 64 << 20

    /// What libjxl may hold while it renders a `canvas`: its float planes, modular channels,
    /// reference frames and group caches take at most about 96 bytes a pixel, plus a fixed
    /// 128 MiB. The pixel limit, checked first, is what bounds it.
    static func frameBudget(canvas: PixelSize) -> Int {
        let (bytes, overflow) = (canvas.width * canvas.height).multipliedReportingOverflow(by: 96)
        return overflow ? Int.max : bytes + (128 << 20)
    }

    let decoder: OpaquePointer
    let budget: UnsafeMutablePointer<cjxl_budget>
    private let runner: UnsafeMutableRawPointer?

    init(threads: Int, coder: String) throws(ImageKernelError) {
        budget = UnsafeMutablePointer<cjxl_budget>.allocate(capacity: 1)
        budget.initialize(to: cjxl_budget(limit: Self.headerBudget, in_use: 0, peak: 0, refused: 0))
        var manager = cjxl_memory_manager(budget)
        guard let decoder = JxlDecoderCreate(&manager) else {
            budget.deallocate()
            throw ImageKernelError(stage: .decode, plugin: coder, code: .internalError, message: "JPEG XL: JxlDecoderCreate failed")
        }
        self.decoder = decoder
        runner = threads > 0 ? JxlThreadParallelRunnerCreate(nil, threads) : nil
        if let runner { _ = JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner) }
    }

    deinit {
        JxlDecoderDestroy(decoder)
        if let runner { JxlThreadParallelRunnerDestroy(runner) }
        budget.deallocate()
    }

    /// Raises the budget for rendering `canvas`.
    func allow(canvas: PixelSize) {
        budget.pointee.limit = Self.frameBudget(canvas: canvas)
    }

    /// The error for a `JXL_DEC_ERROR`: over the memory budget when libjxl was refused memory.
    func failure(_ what: String, coder: String) -> ImageKernelError {
        if budget.pointee.refused > 0 {
            return ImageKernelError(
                stage: .decode, plugin: coder, code: .pixelLimitExceeded,
                message: "JPEG XL \(what): libjxl needed more than its budget of \(budget.pointee.limit) bytes")
        }
        return ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "JPEG XL \(what): libjxl refused the data")
    }
}
