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
    /// Guards everything below; signalled on each report and when the encode is over.
    private let condition = NSCondition()
    private var decodedRows = 0
    private var decodeOver = false
    private var decodeFailed = false
    private var encoded: Result<Data, ImageKernelError>?

    /// A pipeline that resizes with `resize` and encodes with `options`, within `limits`' output
    /// size; pass it to `JPEGCoder.decodeYCbCr(_:options:observer:)`.
    public init(resize: ResizeTransformer, options: EncodeOptions, limits: ProxyConfiguration) {
        self.resize = resize
        self.options = options
        self.limits = limits
    }

    /// The encoded result once the decode has returned: nil when the pipeline did not start
    /// (then the caller resizes and encodes the planes itself).
    public var result: Result<Data, ImageKernelError>? {
        condition.lock()
        defer { condition.unlock() }
        return encoded
    }

    /// Starts the second thread when the banded resize can stand for the whole one.
    public func decodeStarted(_ planes: YCbCrPlanePointers) -> Bool {
        guard let banded = YCbCrBandedResize(resize, source: planes, subsampling: .s420),
              (try? limits.checkOutput(width: banded.output.width, height: banded.output.height)) != nil
        else { return false }
        Self.queue.async { self.encode(banded) }
        return true
    }

    /// Wakes the second thread for the new rows.
    public func rowsDecoded(_ lumaRows: Int) {
        condition.lock()
        decodedRows = lumaRows
        condition.signal()
        condition.unlock()
    }

    /// Waits until the encode is over (the planes are read no more).
    public func decodeEnded(failed: Bool) {
        condition.lock()
        decodeOver = true
        decodeFailed = failed
        condition.broadcast()
        while encoded == nil { condition.wait() }
        condition.unlock()
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
                    self.condition.lock()
                    while self.decodedRows == advanced, !self.decodeOver { self.condition.wait() }
                    let available = self.decodedRows, failed = self.decodeFailed
                    self.condition.unlock()
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
        condition.lock()
        encoded = outcome
        condition.broadcast()
        condition.unlock()
    }
}
