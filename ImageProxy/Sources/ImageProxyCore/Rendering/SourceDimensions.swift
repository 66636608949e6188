import Foundation
import ImageKernel

/// The pixel size a JPEG or PNG declares in its header, read without decoding: how the service
/// tells a small still (rendered on the request's own thread) from one that may take long.
public enum SourceDimensions {
    /// Width times height from the header, or nil when the format is another one or the header
    /// cannot be read within the first 64 KB (the caller then treats the source as large).
    public static func pixelCount(of data: Data, format: ImageFormat) -> Int? {
        size(of: data, format: format).map { $0.width * $0.height }
    }

    /// Width and height from the header, as ``pixelCount(of:format:)`` reads them (the stored
    /// size: a JPEG's EXIF orientation is not applied).
    public static func size(of data: Data, format: ImageFormat) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { raw -> (width: Int, height: Int)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            switch format {
            case .png: return png(bytes)
            case .jpeg: return jpeg(bytes)
            default: return nil
            }
        }
    }

    /// IHDR is the first chunk: width and height at bytes 16…23.
    private static func png(_ b: UnsafeBufferPointer<UInt8>) -> (width: Int, height: Int)? {
        guard b.count >= 24, b[12] == 0x49, b[13] == 0x48, b[14] == 0x44, b[15] == 0x52 else { return nil }
        let width = Int(b[16]) << 24 | Int(b[17]) << 16 | Int(b[18]) << 8 | Int(b[19])
        let height = Int(b[20]) << 24 | Int(b[21]) << 16 | Int(b[22]) << 8 | Int(b[23])
        return width * height > 0 ? (width, height) : nil
    }

    /// The first start-of-frame marker (SOF0…SOF15 but DHT, JPG and DAC) gives height and width.
    private static func jpeg(_ b: UnsafeBufferPointer<UInt8>) -> (width: Int, height: Int)? {
        var i = 2
        let end = min(b.count, 64 << 10)
        while i + 9 <= end {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }  // no length
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                let height = Int(b[i + 5]) << 8 | Int(b[i + 6])
                let width = Int(b[i + 7]) << 8 | Int(b[i + 8])
                return width * height > 0 ? (width, height) : nil  // height 0: set by a later DNL
            }
            guard length >= 2 else { return nil }
            i += 2 + length
        }
        return nil
    }
}
