import CLCMS
import Foundation
import ImageKernel

/// An lcms transform between two pixel layouts of two profiles, freed with its last reference.
/// Built with `cmsFLAGS_NOCACHE`, so any number of threads may run it at once. Between two RGB
/// matrix/shaper profiles at 8 bits it runs the shim's direct path instead (`clcms_fast8`: tone
/// tables with the matrix folded in, three outputs packed in one word), which is what lcms
/// computes, several times faster; but only once it has matched lcms's own transform within one
/// level on the shim's probe set (`clcms_fast8_verify`), checked when the transform is built.
final class LCMSTransform: @unchecked Sendable {
    // @unchecked: `handle` and `fast` are set once; lcms transforms without the one-pixel cache
    // and the direct path's tables keep no state between runs.
    private let handle: OpaquePointer
    /// The direct 8-bit path and its channel count (3 or 4), when the profiles allow it.
    private let fast: (pointer: OpaquePointer, channels: Int32)?
    /// The profiles the transform was built from, kept alive while it lives.
    private let profiles: [LCMSProfile]

    init(
        from source: LCMSProfile, _ sourcePixels: clcms_pixels, to target: LCMSProfile, _ targetPixels: clcms_pixels,
        intent: RenderingIntent, blackPointCompensation: Bool, allowsDirect: Bool = true, plugin: String
    ) throws(ImageKernelError) {
        var error = [CChar](repeating: 0, count: 256)
        let handle = error.withUnsafeMutableBufferPointer {
            clcms_transform_create(
                source.handle, Int32(sourcePixels.rawValue), target.handle, Int32(targetPixels.rawValue),
                intent.iccValue, blackPointCompensation ? 1 : 0, $0.baseAddress, $0.count)
        }
        guard let handle else {
            let reason = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageKernelError(stage: .transform, plugin: plugin, code: .unsupported, message: "no colour transform between these profiles: \(reason)")
        }
        self.handle = handle
        profiles = [source, target]
        let rgb8 = sourcePixels == CLCMS_RGB8 && targetPixels == CLCMS_RGB8
        let rgba8 = sourcePixels == CLCMS_RGBA8 && targetPixels == CLCMS_RGBA8
        let channels: Int32 = rgb8 ? 3 : 4
        if allowsDirect, rgb8 || rgba8, let direct = clcms_fast8_create(source.handle, target.handle, intent.iccValue, blackPointCompensation ? 1 : 0) {
            // Proven before use: more than one level from lcms anywhere on the probe set, and lcms runs.
            if clcms_fast8_verify(direct, handle, channels) <= 1 {
                fast = (direct, channels)
            } else {
                clcms_fast8_free(direct)
                fast = nil
            }
        } else {
            fast = nil
        }
    }

    deinit {
        clcms_transform_free(handle)
        if let fast { clcms_fast8_free(fast.pointer) }
    }

    /// Whether the direct matrix/shaper path runs (for tests and benchmarks).
    var isDirect: Bool { fast != nil }

    /// Converts JPEG Y′CbCr planes in place through the direct path (`clcms_fast8_run_ycbcr`);
    /// false, touching nothing, when the transform has none.
    func runPlanes(
        luma: UnsafeMutableRawBufferPointer, _ lumaStride: Int, blueDifference: UnsafeMutableRawBufferPointer, _ blueStride: Int,
        redDifference: UnsafeMutableRawBufferPointer, _ redStride: Int, width: Int, height: Int, subsampling: YCbCrImage.Subsampling
    ) -> Bool {
        guard let fast else { return false }
        return clcms_fast8_run_ycbcr(
            fast.pointer, luma.baseAddress!.assumingMemoryBound(to: UInt8.self), lumaStride,
            blueDifference.baseAddress!.assumingMemoryBound(to: UInt8.self), blueStride,
            redDifference.baseAddress!.assumingMemoryBound(to: UInt8.self), redStride,
            UInt32(width), UInt32(height), Int32(subsampling.horizontal), Int32(subsampling.vertical)) != 0
    }

    /// One band of rows through the direct path or lcms.
    private func runBand(_ source: UnsafeRawPointer, _ sourceStride: Int, _ destination: UnsafeMutableRawPointer, _ destinationStride: Int, width: Int, rows: Int) {
        if let fast {
            clcms_fast8_run(
                fast.pointer, source.assumingMemoryBound(to: UInt8.self), sourceStride,
                destination.assumingMemoryBound(to: UInt8.self), destinationStride, fast.channels, UInt32(width), UInt32(rows))
        } else {
            clcms_transform_run(handle, source, sourceStride, destination, destinationStride, UInt32(width), UInt32(rows))
        }
    }

    /// Converts `rows` rows of `width` pixels, split into bands over the cores for large images.
    func run(
        _ source: UnsafeRawPointer, sourceStride: Int, into destination: UnsafeMutableRawPointer, destinationStride: Int,
        width: Int, rows: Int
    ) {
        // Bands of at least 256 K pixels: below that a thread hand-off costs more than it saves.
        let bands = max(1, min(ProcessInfo.processInfo.activeProcessorCount, width * rows / (1 << 18)))
        guard bands > 1 else {
            runBand(source, sourceStride, destination, destinationStride, width: width, rows: rows)
            return
        }
        let source = UnsafeSendable(source), destination = UnsafeSendable(destination)
        let rowsPerBand = (rows + bands - 1) / bands
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let first = band * rowsPerBand, count = min(rowsPerBand, rows - first)
            guard count > 0 else { return }
            runBand(
                source.pointer + first * sourceStride, sourceStride, destination.pointer + first * destinationStride, destinationStride,
                width: width, rows: count)
        }
    }
}

/// A pointer handed to the bands of one ``LCMSTransform/run(_:sourceStride:into:destinationStride:width:rows:)``,
/// each of which touches its own rows only.
private struct UnsafeSendable<Pointer>: @unchecked Sendable {
    let pointer: Pointer
    init(_ pointer: Pointer) { self.pointer = pointer }
}

extension RenderingIntent {
    /// The ICC intent number.
    var iccValue: Int32 {
        switch self {
        case .perceptual: 0
        case .relativeColorimetric: 1
        case .saturation: 2
        case .absoluteColorimetric: 3
        }
    }
}
