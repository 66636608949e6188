import Foundation
import ImageKernel

/// One encoded image the coder suite decodes, with what a correct decode must give.
///
/// Only the name, bytes, format and size are required; every other expectation is checked when
/// given. Fixtures are data: read them from files or build them in memory.
public struct CoderFixture: Sendable {
    /// A name for failure reports, usually the file name.
    public var name: String
    /// The encoded bytes.
    public var data: Data
    /// The format the coder must report in ``Image/sourceFormat``.
    public var format: ImageFormat
    /// The width the header declares (orientation not applied).
    public var width: Int
    /// The height the header declares (orientation not applied).
    public var height: Int
    /// The pixel format the decode must produce with the suite's decode options, if known.
    public var pixelFormat: PixelFormat?
    /// The EXIF orientation the decode must report, if known.
    public var orientation: ExifOrientation?
    /// The exact decoded pixels as straight 8-bit RGBA (see ``Image/rgba8Pixels()``), if known.
    public var rgba8Pixels: [UInt8]?
    /// Whether cutting this file short must make decode throw. Set false for files whose format
    /// lets a decoder show what arrived (the suite then checks only that a cut file never crashes
    /// the coder or yields an inconsistent image).
    public var rejectsTruncation: Bool

    /// Creates a fixture.
    public init(
        name: String, data: Data, format: ImageFormat, width: Int, height: Int,
        pixelFormat: PixelFormat? = nil, orientation: ExifOrientation? = nil, rgba8Pixels: [UInt8]? = nil,
        rejectsTruncation: Bool = true
    ) {
        self.name = name
        self.data = data
        self.format = format
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.orientation = orientation
        self.rgba8Pixels = rgba8Pixels
        self.rejectsTruncation = rejectsTruncation
    }

    var described: String { Describe.bytes(name, data) }
}

extension CoderConformance {
    /// A format the coder encodes, and how faithful its round trip must be.
    public struct EncodeTarget: Sendable {
        /// The format passed to ``ImageCoder/encode(_:as:options:)``.
        public var format: ImageFormat
        /// Lossless formats must give back the exact pixels (as straight 8-bit RGBA); lossy ones
        /// must stay within ``maxMeanError`` on smooth gradients.
        public var isLossless: Bool
        /// Options for every encode.
        public var options: EncodeOptions
        /// The pixel formats of the images the suite asks the coder to encode.
        public var pixelFormats: [PixelFormat]
        /// For lossy formats: the largest mean absolute difference per 8-bit sample allowed
        /// between a smooth opaque gradient and its round trip.
        public var maxMeanError: Double

        /// Creates an encode target.
        public init(
            format: ImageFormat, isLossless: Bool, options: EncodeOptions = EncodeOptions(),
            pixelFormats: [PixelFormat] = [.rgba8, .rgb8, .gray8, .grayAlpha8], maxMeanError: Double = 8
        ) {
            self.format = format
            self.isLossless = isLossless
            self.options = options
            self.pixelFormats = pixelFormats
            self.maxMeanError = maxMeanError
        }
    }
}
