/// An 8-bit Y′CbCr image in three planes, as JPEG stores it (JFIF: full-range BT.601): a luma
/// plane at the image's size and two chroma planes, Cb and Cr, on a grid that may be coarser.
///
/// A JPEG-to-JPEG pipeline that only resizes can work on these planes directly (CoderJPEG's
/// `decodeYCbCr` and `encode(_:options:)`, Transformers' `ResizeTransformer`): no colour
/// conversion and no chroma upsampling on the way in, no conversion or downsampling on the way
/// out, and half the samples to resample at 4:2:0. Each plane is a ``PixelFormat/gray8``
/// ``Image`` whose rows may be padded (``Image/bytesPerRow``).
public struct YCbCrImage: Sendable {
    /// How many luma samples one chroma sample spans, across and down: 1 or 2 each.
    public struct Subsampling: Hashable, Sendable, CustomStringConvertible {
        public let horizontal: Int
        public let vertical: Int

        /// Chroma at full resolution.
        public static let none = Subsampling(1, 1)
        /// Half the columns.
        public static let s422 = Subsampling(2, 1)
        /// Half the columns and half the rows: JPEG's usual sampling.
        public static let s420 = Subsampling(2, 2)

        /// Factors of 1 or 2; nil otherwise.
        public init?(horizontal: Int, vertical: Int) {
            guard (1...2).contains(horizontal), (1...2).contains(vertical) else { return nil }
            self.horizontal = horizontal
            self.vertical = vertical
        }

        private init(_ horizontal: Int, _ vertical: Int) {
            self.horizontal = horizontal
            self.vertical = vertical
        }

        /// The chroma planes' size for an image of `width` x `height`: each side divided by its
        /// factor, rounded up (the last sample may span less than the factor).
        public func chromaSize(width: Int, height: Int) -> PixelSize {
            PixelSize(width: (width + horizontal - 1) / horizontal, height: (height + vertical - 1) / vertical)
        }

        public var description: String {
            switch (horizontal, vertical) {
            case (1, 1): "4:4:4"
            case (2, 1): "4:2:2"
            case (2, 2): "4:2:0"
            default: "4:4:0"
            }
        }
    }

    /// Y′, at the image's size.
    public let luma: Image
    /// Cb, at ``Subsampling/chromaSize(width:height:)``.
    public let blueDifference: Image
    /// Cr, at the same size as Cb.
    public let redDifference: Image
    public let subsampling: Subsampling
    /// The EXIF orientation the source declared (not applied).
    public var orientation: ExifOrientation
    /// The source's ICC profile, carried to the output.
    public var iccProfile: [UInt8]?
    /// The source's EXIF, XMP and IPTC, written as ``EncodeOptions/metadata`` says.
    public var metadata: ImageMetadata

    /// The image's width and height: the luma plane's.
    public var width: Int { luma.width }
    public var height: Int { luma.height }

    /// Checks that every plane is consistent ``PixelFormat/gray8`` and that the chroma planes
    /// have the size `subsampling` gives the luma's; throws `invalidArgument` otherwise.
    public init(
        luma: Image, blueDifference: Image, redDifference: Image, subsampling: Subsampling,
        orientation: ExifOrientation = .up, iccProfile: [UInt8]? = nil, metadata: ImageMetadata = ImageMetadata()
    ) throws(ImageKernelError) {
        let chroma = subsampling.chromaSize(width: luma.width, height: luma.height)
        for plane in [luma, blueDifference, redDifference] where plane.pixelFormat != .gray8 || !plane.isConsistent {
            throw ImageKernelError(stage: .transform, code: .invalidArgument, message: "a Y′CbCr plane must be a consistent gray8 image, not \(plane.pixelFormat)")
        }
        for plane in [blueDifference, redDifference] where plane.width != chroma.width || plane.height != chroma.height {
            throw ImageKernelError(
                stage: .transform, code: .invalidArgument,
                message: "a \(plane.width)x\(plane.height) chroma plane does not fit a \(luma.width)x\(luma.height) image at \(subsampling) (\(chroma))")
        }
        self.luma = luma
        self.blueDifference = blueDifference
        self.redDifference = redDifference
        self.subsampling = subsampling
        self.orientation = orientation
        self.iccProfile = iccProfile
        self.metadata = metadata
    }
}
