import Foundation
import ImageKernel

/// Decodes a JPEG while its bytes arrive, in libjpeg's buffered-image mode.
///
/// A progressive (multi-scan) stream yields a preview each time a scan is known complete; a
/// single-scan stream yields a preview each time more rows arrived (rows not yet decoded are
/// black). The image returned when the EOI marker arrives is final (`isPreview == false`).
/// Arithmetic-coded streams cannot be suspended by libjpeg, so they are decoded once, when
/// their EOI marker has arrived. After a throw every later call rethrows the same error.
final class JPEGProgressiveDecoder: ProgressiveImageDecoder {
    private enum State {
        case header
        case awaitingEOI(JPEGScalePlan, JPEGMetadata)
        case decoding(JPEGImageBuilder)
        case finished
        case failed(ImageKernelError)
    }

    private let options: DecodeOptions
    private let pluginName: String
    private var handle: JPEGDecoderHandle?
    private var state: State = .header
    private var canvas: [UInt8] = []

    init(options: DecodeOptions, pluginName: String) {
        self.options = options
        self.pluginName = pluginName
    }

    func append(_ chunk: Data) throws(ImageKernelError) -> Image? {
        switch state {
        case .failed(let error): throw error
        case .finished: return nil
        default: break
        }
        do throws(ImageKernelError) {
            let handle: JPEGDecoderHandle
            if let existing = self.handle {
                handle = existing
            } else {
                handle = try JPEGDecoderHandle(pluginName: pluginName)
                self.handle = handle
            }
            try chunk.withBytes { (bytes) throws(ImageKernelError) in try handle.append(bytes) }
            return try advance(handle)
        } catch {
            state = .failed(error)
            handle = nil
            throw error
        }
    }

    private func advance(_ handle: JPEGDecoderHandle) throws(ImageKernelError) -> Image? {
        if case .header = state {
            guard let header = try handle.readHeader() else { return nil }
            let metadata = JPEGMetadata(markers: handle.markers())
            // Previews need the whole DCT output as a canvas, so it must fit the pixel limit itself.
            let plan = try JPEGScalePlan.make(
                header: header, options: options, plugin: pluginName, streamed: false, orientation: metadata.orientation,
                scaledSize: handle.scaledSize)
            handle.setFastUpsampling(plan.usesFastUpsampling)
            if header.isArithmetic {
                state = .awaitingEOI(plan, metadata)
            } else {
                let output = try handle.start(numerator: plan.numerator, buffered: true)
                canvas = [UInt8](repeating: 0, count: output.width * output.channels * output.height)
                state = .decoding(JPEGImageBuilder(output: output, plan: plan, metadata: metadata, scale: options.scale))
            }
        }
        switch state {
        case .awaitingEOI(let plan, let metadata):
            guard handle.sawEOIBytes else { return nil }
            handle.endInput()
            let output = try handle.start(numerator: plan.numerator, buffered: false)
            canvas = [UInt8](repeating: 0, count: output.width * output.channels * output.height)
            try canvas.withMutableBytes { (bytes) throws(ImageKernelError) in
                try handle.readPixels(into: bytes, bytesPerRow: output.width * output.channels)
            }
            return try finish(JPEGImageBuilder(output: output, plan: plan, metadata: metadata, scale: options.scale))
        case .decoding(let builder):
            let bytesPerRow = builder.output.width * builder.output.channels
            let event = try canvas.withMutableBytes { (bytes) throws(ImageKernelError) in
                try handle.advance(into: bytes, bytesPerRow: bytesPerRow)
            }
            switch event {
            case .none: return nil
            case .preview: return try builder.image(from: canvas, isPreview: true)
            case .final: return try finish(builder)
            }
        default:
            return nil
        }
    }

    private func finish(_ builder: JPEGImageBuilder) throws(ImageKernelError) -> Image {
        let image = try builder.image(from: canvas, isPreview: false)
        state = .finished
        canvas = []
        handle = nil
        return image
    }
}
