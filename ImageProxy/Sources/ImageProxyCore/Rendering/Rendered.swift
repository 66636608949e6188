import Foundation
import ImageKernel

/// An encoded result, ready to send.
public struct Rendered: Sendable {
    /// The encoded image.
    public var data: Data
    /// Its format.
    public var format: ImageFormat
    /// Its strong entity tag, quoted.
    public var etag: String

    public init(data: Data, format: ImageFormat, etag: String) {
        self.data = data
        self.format = format
        self.etag = etag
    }
}

extension ImageFormat {
    /// The media type for `Content-Type` and `Accept`.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .heic, .heif: "image/heic"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .ico: "image/x-icon"
        case .svg: "image/svg+xml"
        case .jxl: "image/jxl"
        default: "application/octet-stream"
        }
    }
}
