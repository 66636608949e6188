internal import CJPEG
import ImageKernel

/// Owns one `cjpeg_decoder` and turns its statuses into ``ImageKernelError``s.
///
/// Every call that can reach libjpeg's `error_exit` goes through the C shim, which holds the
/// `setjmp`; this class only ever sees a status. Used by one task at a time.
final class JPEGDecoderHandle {
    /// The result of a call that may wait for more bytes.
    enum Progress { case done, needsMoreData }

    /// The decoder's output after `start`.
    struct Output {
        var width: Int
        var height: Int
        var channels: Int
    }

    private let pointer: OpaquePointer
    let pluginName: String

    init(pluginName: String) throws(ImageKernelError) {
        guard let pointer = cjpeg_decoder_create() else {
            throw ImageKernelError(stage: .decode, plugin: pluginName, code: .tooLarge, message: "out of memory creating a JPEG decoder")
        }
        self.pointer = pointer
        self.pluginName = pluginName
    }

    deinit { cjpeg_decoder_destroy(pointer) }

    /// Whole-file input; the bytes must outlive every later call on this handle.
    func setSource(_ bytes: UnsafeRawBufferPointer) {
        cjpeg_decoder_set_source(pointer, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// Incremental input: copies the bytes.
    func append(_ bytes: UnsafeRawBufferPointer) throws(ImageKernelError) {
        _ = try check(cjpeg_decoder_append(pointer, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count))
    }

    func endInput() { cjpeg_decoder_end_input(pointer) }

    var sawEOIBytes: Bool { cjpeg_decoder_saw_eoi_bytes(pointer) != 0 }

    /// Reads the header, or reports that more bytes are needed.
    func readHeader() throws(ImageKernelError) -> JPEGHeader? {
        var raw = cjpeg_header()
        guard try check(cjpeg_decoder_read_header(pointer, &raw)) == .done else { return nil }
        return JPEGHeader(raw)
    }

    /// The output size at `numerator`/8.
    func scaledSize(numerator: Int) throws(ImageKernelError) -> (width: Int, height: Int) {
        var width: UInt32 = 0
        var height: UInt32 = 0
        _ = try check(cjpeg_decoder_scaled_size(pointer, Int32(numerator), &width, &height))
        return (Int(width), Int(height))
    }

    /// The saved APP1 and APP2 markers, copied.
    func markers() -> [(marker: Int, bytes: [UInt8])] {
        (0..<cjpeg_decoder_marker_count(pointer)).compactMap { index in
            var marker: Int32 = 0
            var bytes: UnsafePointer<UInt8>?
            var count = 0
            guard cjpeg_decoder_marker_at(pointer, index, &marker, &bytes, &count) == 0 else { return nil }
            return (Int(marker), bytes.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
        }
    }

    /// Starts a one-shot (`buffered == false`) or incremental decode at `numerator`/8.
    func start(numerator: Int, buffered: Bool) throws(ImageKernelError) -> Output {
        var width: UInt32 = 0
        var height: UInt32 = 0
        var channels: Int32 = 0
        let status = buffered
            ? cjpeg_decoder_start_buffered(pointer, Int32(numerator), &width, &height, &channels)
            : cjpeg_decoder_start(pointer, Int32(numerator), &width, &height, &channels)
        guard try check(status) == .done else {
            throw failure(.internalError, "libjpeg asked for more data after the end of input")
        }
        return Output(width: Int(width), height: Int(height), channels: Int(channels))
    }

    /// One-shot: writes every row and finishes.
    func readPixels(into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int) throws(ImageKernelError) {
        let base = destination.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard try check(cjpeg_decoder_read_pixels(pointer, base, bytesPerRow)) == .done else {
            throw failure(.internalError, "libjpeg asked for more data after the end of input")
        }
    }

    /// One-shot, a strip at a time: writes up to `capacity` rows (the next rows of the image) and
    /// returns how many; 0 once the image is complete and finished.
    func readStrip(into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int, capacity: Int) throws(ImageKernelError) -> Int {
        precondition(destination.count >= capacity * bytesPerRow)
        var rows: UInt32 = 0
        let base = destination.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard try check(cjpeg_decoder_read_strip(pointer, base, bytesPerRow, UInt32(capacity), &rows)) == .done else {
            throw failure(.internalError, "libjpeg asked for more data after the end of input")
        }
        return Int(rows)
    }

    /// After `readHeader`, before `start`: whether ``startRaw(numerator:)`` can decode this stream
    /// (three-component YCbCr, luma sampling 1x1, 2x1 or 2x2 with 1x1 chroma, scale 1, 2, 4 or 8/8).
    func rawEligible(numerator: Int) -> Bool { cjpeg_decoder_raw_eligible(pointer, Int32(numerator)) != 0 }

    /// Starts a one-shot decode of libjpeg's raw YCbCr planes; the output is RGB.
    func startRaw(numerator: Int) throws(ImageKernelError) -> Output {
        var width: UInt32 = 0
        var height: UInt32 = 0
        guard try check(cjpeg_decoder_start_raw(pointer, Int32(numerator), &width, &height)) == .done else {
            throw failure(.internalError, "libjpeg asked for more data after the end of input")
        }
        return Output(width: Int(width), height: Int(height), channels: 3)
    }

    /// After ``startRaw(numerator:)``: decodes every row, writes the `target`-size RGB image
    /// (planes area-averaged to `target`, then converted) and finishes.
    func readRawResampled(to target: PixelSize, into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int) throws(ImageKernelError) {
        precondition(destination.count >= target.height * bytesPerRow && bytesPerRow >= target.width * 3)
        let base = destination.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard try check(cjpeg_decoder_read_raw_resampled(pointer, UInt32(target.width), UInt32(target.height), base, bytesPerRow)) == .done else {
            throw failure(.internalError, "libjpeg asked for more data after the end of input")
        }
    }

    /// After ``startRaw(numerator:)``: where component `index`'s whole plane goes (see
    /// `cjpeg_plane_geometry`).
    func rawPlane(_ index: Int) throws(ImageKernelError) -> cjpeg_plane_geometry {
        var geometry = cjpeg_plane_geometry()
        _ = try check(cjpeg_decoder_raw_plane(pointer, Int32(index), &geometry))
        return geometry
    }

    /// After ``startRaw(numerator:)``: decodes every row into the three planes (each laid out as
    /// ``rawPlane(_:)`` says) and finishes.
    /// `progress`, when given, hears the luma rows complete after each row group.
    func readRawPlanes(_ planes: [UnsafeMutablePointer<UInt8>], strides: [Int], progress: ((Int) -> Void)? = nil) throws(ImageKernelError) {
        precondition(planes.count == 3 && strides.count == 3)
        let planePointers: [UnsafeMutablePointer<UInt8>?] = planes
        let status: Int32
        if let progress {
            status = withoutActuallyEscaping(progress) { progress in
                let box = RowsCallback(progress)
                return cjpeg_decoder_read_raw_planes_reporting(pointer, planePointers, strides, RowsCallback.thunk, Unmanaged.passUnretained(box).toOpaque())
            }
        } else {
            status = cjpeg_decoder_read_raw_planes(pointer, planePointers, strides)
        }
        guard try check(status) == .done else {
            throw failure(.internalError, "libjpeg asked for more data after the end of input")
        }
    }

    /// Before `start`: libjpeg-turbo's merged (non-fancy) chroma upsampling, cheaper at 8/8 but
    /// not djpeg's default pixels, so only for output that is averaged down afterwards.
    func setFastUpsampling(_ enabled: Bool) { cjpeg_decoder_set_fast_upsampling(pointer, enabled ? 1 : 0) }
    /// Before ``start(numerator:buffered:)``: CMYK/YCCK streams deliver their CMYK samples (4 channels).
    func setCMYKOutput(_ enabled: Bool) { cjpeg_decoder_set_cmyk_output(pointer, enabled ? 1 : 0) }

    /// Incremental: what became visible in `destination`.
    enum Event { case none, preview, final }

    func advance(into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int) throws(ImageKernelError) -> Event {
        var event: Int32 = 0
        let base = destination.baseAddress?.assumingMemoryBound(to: UInt8.self)
        _ = try check(cjpeg_decoder_advance(pointer, base, bytesPerRow, &event))
        switch UInt32(event) {
        case CJPEG_EVENT_PREVIEW.rawValue: return .preview
        case CJPEG_EVENT_FINAL.rawValue: return .final
        default: return .none
        }
    }

    private func check(_ status: Int32) throws(ImageKernelError) -> Progress {
        switch status {
        case CJPEG_OK.rawValue: return .done
        case CJPEG_SUSPENDED.rawValue: return .needsMoreData
        default: throw currentError()
        }
    }

    private func currentError() -> ImageKernelError {
        let message = String(cString: cjpeg_decoder_message(pointer))
        let code: ImageKernelError.Code
        switch UInt32(cjpeg_decoder_failure(pointer)) {
        case CJPEG_FAILURE_TRUNCATED.rawValue: code = .truncated
        case CJPEG_FAILURE_UNSUPPORTED.rawValue: code = .unsupported
        case CJPEG_FAILURE_NO_MEMORY.rawValue: code = .tooLarge
        case CJPEG_FAILURE_USAGE.rawValue: code = .internalError
        default: code = .corruptData
        }
        return failure(code, message.isEmpty ? "libjpeg failed without a message" : message)
    }

    func failure(_ code: ImageKernelError.Code, _ message: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, plugin: pluginName, code: code, message: message)
    }
}
