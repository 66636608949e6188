import CWebP
import Foundation
import ImageKernel

/// Decodes one WebP from chunks with libwebp's incremental decoder (`WebPIDecoder`) into a
/// buffer this object owns; animated files are collected and decoded whole at the end.
final class WebPProgressiveDecoder: ProgressiveImageDecoder {
    private let options: DecodeOptions
    private let coder: String
    /// Bytes seen so far, until the header is known (and for animations, until the end).
    private var pending = Data()
    private var state: State = .header
    private var failure: ImageKernelError?

    private enum State {
        case header
        case incremental(Incremental)
        case whole(header: WebPHeader, fileSize: Int)
        case finished
    }

    init(options: DecodeOptions, coder: String) {
        self.options = options
        self.coder = coder
    }

    func append(_ chunk: Data) throws(ImageKernelError) -> Image? {
        if let failure { throw failure }
        do {
            return try step(chunk)
        } catch {
            failure = error
            state = .finished
            throw error
        }
    }

    private func step(_ chunk: Data) throws(ImageKernelError) -> Image? {
        switch state {
        case .finished:
            return nil
        case .incremental(let decoder):
            return try feed(decoder, chunk)
        case .whole(let header, let fileSize):
            pending.append(chunk)
            return try finishWhole(header: header, fileSize: fileSize)
        case .header:
            pending.append(chunk)
            let bytes = pending
            let read = bytes.withUnsafeBytes { raw in Result { () throws(ImageKernelError) in try WebPHeader(raw, coder: coder) } }
            let header: WebPHeader
            do {
                header = try read.get()
            } catch {
                // Wait for the header (VP8X files may put a large ICCP chunk before the bitstream).
                if error.code == .truncated && (bytes.count < 12 || bytes.count < Self.riffFileSize(bytes)) { return nil }
                throw error
            }
            let fileSize = Self.riffFileSize(bytes)
            if header.isAnimated {
                state = .whole(header: header, fileSize: fileSize)
                return try finishWhole(header: header, fileSize: fileSize)
            }
            let decoder = try Incremental(header: header, fileSize: fileSize, options: options, coder: coder)
            state = .incremental(decoder)
            pending = Data()
            return try feed(decoder, bytes)
        }
    }

    private func feed(_ decoder: Incremental, _ chunk: Data) throws(ImageKernelError) -> Image? {
        switch try decoder.append(chunk) {
        case .complete:
            state = .finished
            return try decoder.image(isPreview: false)
        case .progressed:
            return try decoder.image(isPreview: true)
        case .waiting:
            return nil
        }
    }

    private func finishWhole(header: WebPHeader, fileSize: Int) throws(ImageKernelError) -> Image? {
        guard pending.count >= fileSize else { return nil }
        state = .finished
        let bytes = pending.prefix(fileSize)
        pending = Data()
        return try WebPCoder().decode(Data(bytes), options: options)
    }

    /// The file's length from the RIFF header (8 + the RIFF payload size, padded to even).
    private static func riffFileSize(_ bytes: Data) -> Int {
        let start = bytes.startIndex
        let size = (4..<8).reduce(0) { $0 | Int(bytes[start + $1]) << (8 * ($1 - 4)) }
        return 8 + size + (size & 1)
    }
}

/// One `WebPIDecoder` writing into an external buffer, with the rows it has finished.
private final class Incremental {
    enum Progress { case waiting, progressed, complete }

    private let decoder: OpaquePointer
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// libwebp keeps a pointer to the configuration's output description until WebPIDelete.
    private let config: UnsafeMutablePointer<WebPDecoderConfig>
    private let size: PixelSize
    private let format: PixelFormat
    private let header: WebPHeader
    private let options: DecodeOptions
    private let coder: String
    private var rowsAtLastPreview: Int32 = 0
    /// The whole file while it has metadata chunks: an EXIF chunk may follow the bitstream.
    private var metadataBytes = Data()
    private let fileSize: Int
    private var pixelsComplete = false

    init(header: WebPHeader, fileSize: Int, options: DecodeOptions, coder: String) throws(ImageKernelError) {
        let target = try options.webpOutputSize(for: header.size, coder: coder)
        let settings = try WebPStillDecoding.makeConfig(header: header, target: target, coder: coder)
        format = header.stillPixelFormat
        let rowBytes = target.width * format.bytesPerPixel
        buffer = .allocate(capacity: rowBytes * target.height)
        buffer.initialize(repeating: 0)
        config = .allocate(capacity: 1)
        config.initialize(to: settings)
        config.pointee.output.is_external_memory = 1
        config.pointee.output.u.RGBA.rgba = buffer.baseAddress
        config.pointee.output.u.RGBA.stride = Int32(rowBytes)
        config.pointee.output.u.RGBA.size = buffer.count
        guard let decoder = WebPIDecode(nil, 0, config) else {
            buffer.deallocate()
            config.deallocate()
            throw ImageKernelError(stage: .decode, plugin: coder, code: .internalError, message: "libwebp: cannot create the incremental decoder")
        }
        self.decoder = decoder
        self.fileSize = fileSize
        self.size = target
        self.header = header
        self.options = options
        self.coder = coder
    }

    deinit {
        WebPIDelete(decoder)
        WebPFreeDecBuffer(&config.pointee.output)
        config.deallocate()
        buffer.deallocate()
    }

    func append(_ chunk: Data) throws(ImageKernelError) -> Progress {
        let hasMetadata = header.hasMetadata
        if hasMetadata { metadataBytes.append(chunk) }
        if pixelsComplete { return metadataBytes.count >= fileSize ? .complete : .waiting }
        let status = chunk.withUnsafeBytes { WebPIAppend(decoder, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
        switch status {
        case VP8_STATUS_OK:
            pixelsComplete = true
            // Every pixel is there; the final image waits for the chunks after the bitstream.
            if hasMetadata && metadataBytes.count < fileSize {
                rowsAtLastPreview = Int32(size.height)
                return .progressed
            }
            return .complete
        case VP8_STATUS_SUSPENDED:
            var lastRow: Int32 = 0
            _ = WebPIDecGetRGB(decoder, &lastRow, nil, nil, nil)
            // A preview per 1/32 of the image, so tiny chunks do not copy the buffer each time.
            let step = Int32(max(1, size.height / 32))
            guard lastRow >= rowsAtLastPreview + step || (lastRow == Int32(size.height) && lastRow > rowsAtLastPreview) else {
                return .waiting
            }
            rowsAtLastPreview = lastRow
            return .progressed
        default:
            throw WebPFailure.decode(status, coder: coder)
        }
    }

    func image(isPreview: Bool) throws(ImageKernelError) -> Image {
        let metadata = isPreview ? WebPMetadata() : metadataBytes.withUnsafeBytes { WebPMetadata($0, header: header) }
        return try Image(
            width: size.width, height: size.height, pixelFormat: format, pixels: Array(buffer),
            orientation: metadata.orientation, iccProfile: metadata.iccProfile, sourceFormat: .webp, scale: options.scale,
            isPreview: isPreview, metadata: metadata.blocks)
    }
}
