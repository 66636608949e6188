extension Image {
    /// The image reduced to `size` by area averaging: output pixel `(x, y)` is the mean of source
    /// columns `x·W/w ..< (x+1)·W/w` and rows `y·H/h ..< (y+1)·H/h`, so every source pixel counts
    /// once and nothing aliases.
    ///
    /// Any pixel format (gray, gray+alpha, RGB, RGBA; 8 or 16 bits) keeps its format. Where there
    /// is straight alpha, colour is averaged weighted by alpha (premultiplied) and divided back,
    /// so fully transparent pixels do not darken edges; premultiplied images are averaged as
    /// they are. Orientation, ICC profile, EXIF, decoder notes, source format, scale, duration, loop
    /// count and the preview flag are kept; frames are dropped (this reduces one picture).
    ///
    /// Coders without a reduced-size decode use it for thumbnails (see
    /// ``DecodeOptions/thumbnailPixelSize``). `size` must be positive and no larger than the image
    /// on either side; otherwise this throws `invalidArgument`.
    public func areaDownscaled(to size: PixelSize) throws(ImageKernelError) -> Image {
        guard isConsistent, size.width > 0, size.height > 0, size.width <= width, size.height <= height else {
            throw ImageKernelError(
                stage: .transform, code: .invalidArgument,
                message: "cannot area-downscale a \(width)x\(height) image to \(size)")
        }
        let format = pixelFormat
        let bytesPerSample = format.bytesPerSample
        var out = [UInt8](repeating: 0, count: size.width * size.height * format.bytesPerPixel)
        let reducer = AreaReducer(
            source: PixelSize(width: width, height: height), target: size, channels: format.channelCount,
            weightsByAlpha: format.hasAlpha && !format.isPremultiplied, maxSample: bytesPerSample == 2 ? 65535 : 255)
        pixels.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { dest in
                if bytesPerSample == 2 {
                    reducer.run(source, bytesPerRow: bytesPerRow, into: dest, as: UInt16.self)
                } else {
                    reducer.run(source, bytesPerRow: bytesPerRow, into: dest, as: UInt8.self)
                }
            }
        }
        var result = try Image(width: size.width, height: size.height, pixelFormat: format, pixels: out)
        result.orientation = orientation
        result.iccProfile = iccProfile
        result.cicp = cicp
        result.sourceFormat = sourceFormat
        result.scale = scale
        result.isPreview = isPreview
        result.metadata = metadata
        result.decoderNotes = decoderNotes
        result.duration = duration
        result.loopCount = loopCount
        return result
    }

    /// This image as straight 8-bit RGBA (``rgba8Pixels()``) reduced by ``areaDownscaled(to:)``,
    /// for coders whose library cannot decode straight to a smaller size (composited animation
    /// frames, GIF). `size` is clamped to at least 1×1 and at most the image's size; metadata is
    /// kept, frames are dropped.
    public func areaDownscaledRGBA8(to size: PixelSize) -> Image {
        var rgba = self
        rgba.frames = []
        rgba.pixels = rgba8Pixels()
        rgba.pixelFormat = .rgba8
        rgba.bytesPerRow = width * 4
        let target = PixelSize(width: min(width, max(1, size.width)), height: min(height, max(1, size.height)))
        guard target.width < width || target.height < height else { return rgba }
        return (try? rgba.areaDownscaled(to: target)) ?? rgba
    }
}

/// The box average behind ``Image/areaDownscaled(to:)``: per output row, the source rows of its
/// box are summed column by column (colour weighted by alpha where asked), then each output
/// pixel sums its columns and divides once, rounding to nearest.
private struct AreaReducer {
    let source: PixelSize
    let target: PixelSize
    let channels: Int
    let weightsByAlpha: Bool
    let maxSample: UInt64

    init(source: PixelSize, target: PixelSize, channels: Int, weightsByAlpha: Bool, maxSample: UInt64) {
        self.source = source
        self.target = target
        self.channels = channels
        self.weightsByAlpha = weightsByAlpha
        self.maxSample = maxSample
    }

    /// Box `i` of `count` boxes over `length` source units: `i·length/count ..< (i+1)·length/count`.
    private func bounds(_ i: Int, _ count: Int, _ length: Int) -> Range<Int> {
        (i * length / count)..<((i + 1) * length / count)
    }

    func run<Sample: FixedWidthInteger & UnsignedInteger>(
        _ src: UnsafeRawBufferPointer, bytesPerRow: Int, into dst: UnsafeMutableRawBufferPointer, as: Sample.Type
    ) {
        let rowSamples = source.width * channels
        let alphaIndex = channels - 1
        var columns = [UInt64](repeating: 0, count: rowSamples)
        let outSamples = dst.bindMemory(to: Sample.self)
        columns.withUnsafeMutableBufferPointer { sums in
            for y in 0..<target.height {
                for i in 0..<rowSamples { sums[i] = 0 }
                let rows = bounds(y, target.height, source.height)
                for r in rows {
                    let row = UnsafeRawBufferPointer(rebasing: src[(r * bytesPerRow)...])
                    for x in 0..<source.width {
                        let base = x * channels
                        if weightsByAlpha {
                            let a = UInt64(row.loadUnaligned(fromByteOffset: (base + alphaIndex) * MemoryLayout<Sample>.size, as: Sample.self))
                            for c in 0..<alphaIndex {
                                let v = UInt64(row.loadUnaligned(fromByteOffset: (base + c) * MemoryLayout<Sample>.size, as: Sample.self))
                                sums[base + c] &+= v &* a
                            }
                            sums[base + alphaIndex] &+= a
                        } else {
                            for c in 0..<channels {
                                sums[base + c] &+= UInt64(row.loadUnaligned(fromByteOffset: (base + c) * MemoryLayout<Sample>.size, as: Sample.self))
                            }
                        }
                    }
                }
                writeRow(y, rows: rows.count, sums: UnsafeBufferPointer(sums), into: outSamples)
            }
        }
    }

    private func writeRow<Sample: FixedWidthInteger & UnsignedInteger>(
        _ y: Int, rows: Int, sums: UnsafeBufferPointer<UInt64>, into out: UnsafeMutableBufferPointer<Sample>
    ) {
        let alphaIndex = channels - 1
        var totals = [UInt64](repeating: 0, count: channels)
        for x in 0..<target.width {
            let cols = bounds(x, target.width, source.width)
            let area = UInt64(rows * cols.count)
            for c in 0..<channels { totals[c] = 0 }
            for sx in cols {
                for c in 0..<channels { totals[c] &+= sums[sx * channels + c] }
            }
            let o = (y * target.width + x) * channels
            if weightsByAlpha {
                let alphaSum = totals[alphaIndex]
                for c in 0..<alphaIndex {
                    out[o + c] = alphaSum == 0 ? 0 : Sample(min(maxSample, (totals[c] + alphaSum / 2) / alphaSum))
                }
                out[o + alphaIndex] = Sample((alphaSum + area / 2) / area)
            } else {
                for c in 0..<channels { out[o + c] = Sample((totals[c] + area / 2) / area) }
            }
        }
    }
}
