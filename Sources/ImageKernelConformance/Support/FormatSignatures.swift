import Foundation
import ImageKernel

/// The leading bytes of each format the kernel sniffs, padded to 64 bytes: enough for the
/// kernel's sniffer, not a decodable image. A coder must not claim a signature of a format it
/// does not decode.
enum FormatSignatures {
    static func sample(_ format: ImageFormat) -> Data? {
        var bytes: [UInt8]
        switch format {
        case .png: bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        case .jpeg: bytes = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0]
        case .gif: bytes = Array("GIF89a".utf8) + [1, 0, 1, 0]
        case .webp: bytes = Array("RIFF".utf8) + [56, 0, 0, 0] + Array("WEBPVP8 ".utf8)
        case .tiff: bytes = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        case .bmp: bytes = Array("BM".utf8) + [64, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0]
        case .pdf: bytes = Array("%PDF-1.7\n".utf8)
        case .ico: bytes = [0, 0, 1, 0, 1, 0, 16, 16]
        case .heic: bytes = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        case .heif: bytes = [0, 0, 0, 20] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("mif1".utf8)
        case .avif: bytes = [0, 0, 0, 24] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("mif1avif".utf8)
        case .jxl: bytes = [0x00, 0x00, 0x00, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]
        case .svg: bytes = Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)
        default: return nil
        }
        let filler: UInt8 = format == .svg ? 0x20 : 0
        bytes += [UInt8](repeating: filler, count: max(0, 64 - bytes.count))
        return Data(bytes)
    }
}
