extension YCbCrImage {
    /// The image as ``PixelFormat/rgb8``: each chroma sample repeated over the luma samples it
    /// covers (so a 4:2:0 encoder that averages 2×2 blocks gets the same chroma back) and JFIF's
    /// full-range BT.601 matrix applied in 16.16 fixed point, rounded. The orientation and ICC
    /// profile come along. For work at a render's output size, where the planes were resampled
    /// and a step needs RGB (a colour conversion).
    public func rgbImage() throws(ImageKernelError) -> Image {
        let width = self.width, height = self.height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let h = subsampling.horizontal, v = subsampling.vertical
        // Cr→R 1.402, Cb→G 0.344136, Cr→G 0.714136, Cb→B 1.772, in 16.16.
        let crR = 91_881, cbG = 22_554, crG = 46_802, cbB = 116_130, half = 1 << 15
        // The chroma column of each output column, once (a division per pixel would cost more
        // than the arithmetic).
        let chromaColumn = (0..<width).map { $0 / h }
        luma.pixels.withUnsafeBufferPointer { y in
            blueDifference.pixels.withUnsafeBufferPointer { cb in
                redDifference.pixels.withUnsafeBufferPointer { cr in
                    chromaColumn.withUnsafeBufferPointer { columns in
                        pixels.withUnsafeMutableBufferPointer { out in
                            let y = y.baseAddress!, cb = cb.baseAddress!, cr = cr.baseAddress!, out = out.baseAddress!
                            for row in 0..<height {
                                let yRow = y + row * luma.bytesPerRow
                                let cbRow = cb + (row / v) * blueDifference.bytesPerRow, crRow = cr + (row / v) * redDifference.bytesPerRow
                                var o = out + row * width * 3
                                for column in 0..<width {
                                    let luma = Int(yRow[column]) &<< 16 &+ half
                                    let c = columns[column]
                                    let b = Int(cbRow[c]) &- 128, r = Int(crRow[c]) &- 128
                                    o[0] = UInt8(clamping: (luma &+ crR &* r) &>> 16)
                                    o[1] = UInt8(clamping: (luma &- cbG &* b &- crG &* r) &>> 16)
                                    o[2] = UInt8(clamping: (luma &+ cbB &* b) &>> 16)
                                    o += 3
                                }
                            }
                        }
                    }
                }
            }
        }
        return try Image(
            width: width, height: height, pixelFormat: .rgb8, bytesPerRow: width * 3, pixels: pixels,
            orientation: orientation, iccProfile: iccProfile, sourceFormat: luma.sourceFormat)
    }
}
