/// What a resize after the decode needs, so that a codec can decode at a smaller scale of its own
/// ("shrink on load", as libvips and imgproxy do it): libjpeg's DCT scaling decodes a 4000x3000
/// JPEG at 1/8 for a fraction of the full decode's time and memory.
///
/// Unlike ``DecodeOptions/thumbnailPixelSize`` nothing is resampled to a fixed size: the codec
/// only skips resolution the caller's resize would throw away, and the resize does the rest at its
/// own quality. The decoded image is at least as large as the resize needs:
/// - ``Mode/fill`` (a resize that covers the box, or stretches to it): both sides at least the
///   box's;
/// - ``Mode/fit`` (a resize that fits inside the box): at least one side as large as the box's,
///   which keeps the image at or above the fit's scale.
///
/// The box is in display orientation: a codec that reports an EXIF orientation which swaps the
/// axes swaps the box's sides before it compares. An image that does not exceed the box in this
/// sense is decoded at full size, and a codec without cheap scaling ignores the option.
public struct ShrinkOnLoad: Sendable, Hashable, CustomStringConvertible {
    /// How the resize that follows meets its box.
    public enum Mode: String, Sendable, Hashable {
        /// Inside the box: one side reaches it.
        case fit
        /// Covering the box (or stretched to it): both sides reach it.
        case fill
    }

    public var width: Int
    public var height: Int
    public var mode: Mode

    public init(width: Int, height: Int, mode: Mode) {
        self.width = width
        self.height = height
        self.mode = mode
    }

    /// Whether a decode of `size` (in stored orientation, with `orientation` to apply) still holds
    /// every pixel the resize needs.
    public func isSatisfied(by size: PixelSize, orientation: ExifOrientation = .up) -> Bool {
        let (w, h) = orientation.swapsDimensions ? (size.height, size.width) : (size.width, size.height)
        switch mode {
        case .fill: return w >= width && h >= height
        case .fit: return w >= width || h >= height
        }
    }

    /// `fill 300x200`.
    public var description: String { "\(mode.rawValue) \(width)x\(height)" }
}
