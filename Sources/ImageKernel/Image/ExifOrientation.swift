/// The EXIF orientation of an image (TIFF tag 0x0112). Decoders report it; they do not apply it.
public enum ExifOrientation: Int, Hashable, Sendable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// Whether displaying the image in this orientation swaps width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }
}
