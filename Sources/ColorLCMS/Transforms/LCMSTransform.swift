import CLCMS
import Foundation
import ImageKernel

/// An lcms transform between two pixel layouts of two profiles, freed with its last reference.
/// Built with `cmsFLAGS_NOCACHE`, so any number of threads may run it at once.
final class LCMSTransform: @unchecked Sendable {
    // @unchecked: `handle` is set once; lcms transforms without the one-pixel cache keep no
    // state between runs.
    private let handle: OpaquePointer
    /// The profiles the transform was built from, kept alive while it lives.
    private let profiles: [LCMSProfile]

    init(
        from source: LCMSProfile, _ sourcePixels: clcms_pixels, to target: LCMSProfile, _ targetPixels: clcms_pixels,
        intent: RenderingIntent, blackPointCompensation: Bool, plugin: String
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
    }

    deinit { clcms_transform_free(handle) }

    /// Converts `rows` rows of `width` pixels, split into bands over the cores for large images.
    func run(
        _ source: UnsafeRawPointer, sourceStride: Int, into destination: UnsafeMutableRawPointer, destinationStride: Int,
        width: Int, rows: Int
    ) {
        // Bands of at least 256 K pixels: below that a thread hand-off costs more than it saves.
        let bands = max(1, min(ProcessInfo.processInfo.activeProcessorCount, width * rows / (1 << 18)))
        guard bands > 1 else {
            clcms_transform_run(handle, source, sourceStride, destination, destinationStride, UInt32(width), UInt32(rows))
            return
        }
        let source = UnsafeSendable(source), destination = UnsafeSendable(destination)
        let rowsPerBand = (rows + bands - 1) / bands
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let first = band * rowsPerBand, count = min(rowsPerBand, rows - first)
            guard count > 0 else { return }
            clcms_transform_run(
                handle, source.pointer + first * sourceStride, sourceStride,
                destination.pointer + first * destinationStride, destinationStride, UInt32(width), UInt32(count))
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
