/// Y′CbCr planes in memory someone else owns: planes a streaming decode is filling (CoderJPEG's
/// `YCbCrDecodeObserver`), or planes a resize is still writing while an encoder reads them.
///
/// It carries raw pointers across threads on purpose; whoever hands it over says when each row
/// may be read, and keeps the memory alive until its readers are done.
public struct YCbCrPlanePointers: @unchecked Sendable {
    /// One plane: `height` rows of `width` samples, `bytesPerRow` apart.
    public struct Plane: @unchecked Sendable {
        public var base: UnsafePointer<UInt8>
        public var bytesPerRow: Int
        public var width: Int
        public var height: Int

        public init(base: UnsafePointer<UInt8>, bytesPerRow: Int, width: Int, height: Int) {
            self.base = base
            self.bytesPerRow = bytesPerRow
            self.width = width
            self.height = height
        }
    }

    /// The image's (luma) size.
    public var width: Int
    public var height: Int
    /// Luma samples per chroma sample, across and down.
    public var subsampling: YCbCrImage.Subsampling
    /// Y′, Cb, Cr.
    public var planes: [Plane]

    public init(width: Int, height: Int, subsampling: YCbCrImage.Subsampling, planes: [Plane]) {
        self.width = width
        self.height = height
        self.subsampling = subsampling
        self.planes = planes
    }

    /// The chroma rows that go with the first `lumaRows` luma rows.
    public func chromaRows(forLumaRows lumaRows: Int) -> Int {
        let factor = subsampling.vertical
        return min(planes[1].height, (lumaRows + factor - 1) / factor)
    }
}
