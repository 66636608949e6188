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

    /// JPEG Y′CbCr planes converted through the direct path (`clcms_fast8_run_ycbcr`) into new,
    /// tightly packed planes (the source's are only read, so no copy of them is made); nil when
    /// the transform has none or the subsampling is not 1 or 2 each way.
    func runPlanes(_ planes: YCbCrImage) -> (luma: [UInt8], blueDifference: [UInt8], redDifference: [UInt8])? {
        guard let fast else { return nil }
        let chroma = planes.subsampling.chromaSize(width: planes.width, height: planes.height)
        let lumaCount = planes.width * planes.height, chromaCount = chroma.width * chroma.height
        // Every byte is written by the C kernel before the arrays are read.
        var luma = [UInt8](unsafeUninitializedCapacity: lumaCount) { $1 = lumaCount }
        var blue = [UInt8](unsafeUninitializedCapacity: chromaCount) { $1 = chromaCount }
        var red = [UInt8](unsafeUninitializedCapacity: chromaCount) { $1 = chromaCount }
        let done = planes.luma.pixels.withUnsafeBytes { y in
            planes.blueDifference.pixels.withUnsafeBytes { cb in
                planes.redDifference.pixels.withUnsafeBytes { cr in
                    luma.withUnsafeMutableBytes { outY in
                        blue.withUnsafeMutableBytes { outCb in
                            red.withUnsafeMutableBytes { outCr in
                                // The kernel only reads `source`; its struct is not const-qualified.
                                var source = clcms_planes(
                                    luma: Self.mutable(y), cb: Self.mutable(cb), cr: Self.mutable(cr), luma_stride: planes.luma.bytesPerRow,
                                    cb_stride: planes.blueDifference.bytesPerRow, cr_stride: planes.redDifference.bytesPerRow)
                                var destination = clcms_planes(
                                    luma: outY.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    cb: outCb.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    cr: outCr.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    luma_stride: planes.width, cb_stride: chroma.width, cr_stride: chroma.width)
                                return clcms_fast8_run_ycbcr(
                                    fast.pointer, &source, &destination, UInt32(planes.width), UInt32(planes.height),
                                    Int32(planes.subsampling.horizontal), Int32(planes.subsampling.vertical)) != 0
                            }
                        }
                    }
                }
            }
        }
        return done ? (luma, blue, red) : nil
    }

    private static func mutable(_ bytes: UnsafeRawBufferPointer) -> UnsafeMutablePointer<UInt8> {
        UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
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
