import CoderJPEG
import Dispatch
import Foundation
import ImageKernel
import Transformers

/// ``PlanarRender`` on two threads: while the caller's thread decodes the planes, a second one
/// resizes each band of rows already decoded (``YCbCrBandedResize``) and feeds the encoder the
/// output rows as they are done, so the resize and the encode hide behind the decode. For a
/// render that runs alone: beside other renders both cores are busy already, and the hand-offs
/// would only cost CPU. The bytes are the one-thread path's.
public final class PipelinedPlanarRender: YCbCrDecodeObserver, @unchecked Sendable {
    /// Where the second stage runs: a serial queue, whose thread comes from Dispatch's
    /// overcommitting pool, so it starts even while the cooperative threads are all busy (one of
    /// them waits for it in ``decodeEnded(failed:)``). Only a render alone pipelines, so one
    /// thread serves them.
    private static let queue = DispatchQueue(label: "image-proxy.render-pipeline")

    private let resize: ResizeTransformer
    private let options: EncodeOptions
    private let limits: ProxyConfiguration
    private let afterEncode: PlanarRender.AfterEncode?
    /// The decode's progress, for the second thread: the luma rows decoded, times 4, plus 2 once
    /// the decode is over and 1 when it failed.
    private let progress = SpinningSignal()
    /// 1 once ``encoded`` is set, for the decode's thread.
    private let finished = SpinningSignal()
    /// Guards ``encoded``.
    private let lock = NSLock()
    private var encoded: Result<Data, ImageKernelError>?

    /// A pipeline that resizes with `resize` and encodes with `options`, within `limits`' output
    /// size; pass it to `JPEGCoder.decodeYCbCr(_:options:observer:)`. `afterEncode` gets the
    /// encoded bytes on the second thread (see ``PlanarRender/AfterEncode``).
    public init(resize: ResizeTransformer, options: EncodeOptions, limits: ProxyConfiguration, afterEncode: PlanarRender.AfterEncode? = nil) {
        self.resize = resize
        self.options = options
        self.limits = limits
        self.afterEncode = afterEncode
    }

    /// The encoded result once the decode has returned: nil when the pipeline did not start
    /// (then the caller resizes and encodes the planes itself).
    public var result: Result<Data, ImageKernelError>? {
        lock.lock()
        defer { lock.unlock() }
        return encoded
    }

    /// Starts the second thread when the banded resize can stand for the whole one.
    public func decodeStarted(_ planes: YCbCrPlanePointers) -> Bool {
        guard let banded = YCbCrBandedResize(resize, source: planes, subsampling: .s420),
              (try? limits.checkOutput(width: banded.output.width, height: banded.output.height)) != nil
        else { return false }
        let decodeCPU = CPUPlacement.currentCPU()
        Self.queue.async {
            let saved = decodeCPU.flatMap(CPUPlacement.leave)
            self.encode(banded)
            if let saved { CPUPlacement.restore(saved) }
        }
        return true
    }

    /// Hands the new rows to the second thread.
    public func rowsDecoded(_ lumaRows: Int) {
        decodedRows = lumaRows
        progress.publish(lumaRows << 2)
    }

    /// The rows reported so far (the decode's thread only).
    private var decodedRows = 0

    /// Waits until the encode is over (the planes are read no more).
    public func decodeEnded(failed: Bool) {
        progress.publish(decodedRows << 2 | 2 | (failed ? 1 : 0))
        _ = finished.wait { $0 == 1 }
    }

    /// On the second thread: encodes the output rows as the banded resize makes them. Once the
    /// decode has failed it stops reading the source planes and lets the encoder run over what
    /// is there (its bytes are thrown away: the decode's error is the answer).
    private func encode(_ banded: YCbCrBandedResize) {
        var advanced = 0
        // Set once the encoder can wait for no more rows: true when the decode failed, false when
        // it ended without the rows the encoder asked for.
        var decodeFailedWhenStopped: Bool?
        let outcome = Result { () throws(ImageKernelError) -> Data in
            let data = try JPEGCoder().encode(banded.output, options: options) { rows in
                while banded.outputLumaRowsDone < rows, decodeFailedWhenStopped == nil {
                    let state = self.progress.wait { $0 >> 2 != advanced || $0 & 2 != 0 }
                    let available = state >> 2, failed = state & 1 != 0
                    if failed || available == advanced {
                        decodeFailedWhenStopped = failed
                        return
                    }
                    banded.advance(sourceLumaRows: available)
                    advanced = available
                }
            }
            if decodeFailedWhenStopped == false {
                throw ImageKernelError(stage: .transform, code: .internalError, message: "the banded resize ran out of source rows")
            }
            return data
        }
        let after = (try? outcome.get()).flatMap { afterEncode?($0) }
        lock.lock()
        encoded = outcome
        lock.unlock()
        finished.publish(1)
        if let after {
            // The bytes may be done before the decode is (rows below a crop): wait for its end.
            after(progress.wait { $0 & 2 != 0 } & 1 == 0)
        }
    }
}
