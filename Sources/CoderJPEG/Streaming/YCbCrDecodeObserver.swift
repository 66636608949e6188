import ImageKernel

/// Hears a ``JPEGCoder/decodeYCbCr(_:options:observer:)`` fill its planes, row group by row
/// group, so another thread can work on the rows already decoded (a pipelined resize).
///
/// Implementation requirements: the calls come on the decoding thread, in order:
/// ``decodeStarted(_:)`` once, then ``rowsDecoded(_:)`` after each row group when it said yes,
/// then ``decodeEnded(failed:)`` once, on success and on failure alike. The planes' memory is
/// valid from the first call until `decodeEnded` returns, so `decodeEnded` must not return while
/// anything still reads it. Rows below the last count are final and are not written again.
public protocol YCbCrDecodeObserver: AnyObject {
    /// The planes about to be decoded. Return false to let the decode run without reports
    /// (``decodeEnded(failed:)`` is then not called either).
    func decodeStarted(_ planes: YCbCrPlanePointers) -> Bool
    /// Luma rows `0 ..< lumaRows` (and the matching chroma rows) hold their final samples.
    func rowsDecoded(_ lumaRows: Int)
    /// The decode is over; `failed` when it throws. Return once nothing reads the planes.
    func decodeEnded(failed: Bool)
}
