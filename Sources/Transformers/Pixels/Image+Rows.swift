import ImageKernel

extension Image {
    /// A new `width`×`height` image of `format` whose rows `render` fills in working pixels
    /// (called once per row, from as many threads as `threadLimit` and the size allow).
    static func rendering(
        like template: Image, width: Int, height: Int, format: PixelFormat, codec: WorkingRowCodec, threadLimit: Int = 0,
        work: Int, _ render: (_ y: Int, _ row: UnsafeMutablePointer<WorkingPixel>) -> Void
    ) throws(ImageKernelError) -> Image {
        try rendering(
            like: template, width: width, height: height, format: format, codec: codec, threadLimit: threadLimit, work: work, slice: {}
        ) { _, y, row in render(y, row) }
    }

    /// As ``rendering(like:width:height:format:codec:threadLimit:work:_:)``, with state that each
    /// slice of rows makes once (`slice`) and `render` keeps across that slice's rows, which come
    /// in ascending order; `slicesPerThread` as ``Parallel/forEachSlice(rows:threads:slicesPerThread:_:)``.
    static func rendering<Slice>(
        like template: Image, width: Int, height: Int, format: PixelFormat, codec: WorkingRowCodec, threadLimit: Int = 0,
        work: Int, slicesPerThread: Int = 4, slice makeSlice: () -> Slice, _ render: (_ slice: inout Slice, _ y: Int, _ row: UnsafeMutablePointer<WorkingPixel>) -> Void
    ) throws(ImageKernelError) -> Image {
        try TransformLimits.check(width: width, height: height, what: "output")
        let rowBytes = width * format.bytesPerPixel
        var output = [UInt8](repeating: 0, count: rowBytes * height)
        output.withUnsafeMutableBytes { destination in
            let base = destination.baseAddress!
            let threads = Parallel.threads(rows: height, work: work, limit: threadLimit)
            Parallel.forEachSlice(rows: height, threads: threads, slicesPerThread: slicesPerThread) { rows in
                let row = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: width)
                defer { row.deallocate() }
                var state = makeSlice()
                for y in rows {
                    render(&state, y, row)
                    codec.store(row, width: width, into: base + y * rowBytes)
                }
            }
        }
        return try template.derived(width: width, height: height, format: format, pixels: output)
    }

    /// This image with each row passed through `body` in working pixels, stored as `format`
    /// (this image's format unless a step adds alpha). With `premultiplying` false, colour stays
    /// straight while `body` sees it.
    func mappingRows(
        to format: PixelFormat? = nil, premultiplying: Bool, threadLimit: Int = 0,
        _ body: (_ y: Int, _ row: UnsafeMutablePointer<WorkingPixel>) -> Void
    ) throws(ImageKernelError) -> Image {
        let input = WorkingRowCodec(pixelFormat, premultiplying: premultiplying)
        let outputFormat = format ?? pixelFormat
        let output = WorkingRowCodec(outputFormat, premultiplying: input.premultiplies)
        let result = pixels.withUnsafeBytes { source in
            let base = source.baseAddress!
            return Result { () throws(ImageKernelError) in try Image.rendering(
                like: self, width: width, height: height, format: outputFormat, codec: output, threadLimit: threadLimit,
                work: width * height * 4
            ) { y, row in
                input.load(base + y * bytesPerRow, width: width, into: row)
                body(y, row)
            } }
        }
        return try result.get()
    }

    /// Every pixel of this image in working pixels (row after row, `width` per row), for steps
    /// that read anywhere in the source.
    func withWorkingPlane<R>(
        codec: WorkingRowCodec, _ body: (UnsafePointer<WorkingPixel>) throws(ImageKernelError) -> R
    ) throws(ImageKernelError) -> R {
        let plane = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: width * height)
        defer { plane.deallocate() }
        pixels.withUnsafeBytes { source in
            for y in 0..<height { codec.load(source.baseAddress! + y * bytesPerRow, width: width, into: plane + y * width) }
        }
        return try body(plane)
    }
}
