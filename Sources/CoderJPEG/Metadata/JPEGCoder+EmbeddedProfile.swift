import Foundation
import ImageKernel

extension JPEGCoder {
    /// The ICC profile a JPEG file embeds (its `ICC_PROFILE` APP2 chunks, joined in sequence
    /// order), read from the markers before the first scan without decoding anything; nil when
    /// there is none, the chunks are inconsistent, or the bytes are not a JPEG.
    ///
    /// For routing a file before the decode: an image service sends sources whose profile needs
    /// converting down its colour-managed path, and the others down a faster one.
    public static func embeddedICCProfile(_ data: Data) -> [UInt8]? {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> [UInt8]? in
            guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
            var payloads: [[UInt8]] = []
            var offset = 2
            while offset + 1 < bytes.count {
                guard bytes[offset] == 0xFF else { return nil }
                let marker = bytes[offset + 1]
                offset += 2
                if marker == 0xFF { offset -= 1; continue }  // a fill byte before the marker
                if marker == 0xDA || marker == 0xD9 { break }  // start of scan, end of image
                if (0xD0...0xD7).contains(marker) || marker == 0x01 { continue }  // no length
                guard offset + 2 <= bytes.count else { return nil }
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                guard length >= 2, offset + length <= bytes.count else { return nil }
                if marker == 0xE2 { payloads.append(Array(bytes[(offset + 2)..<(offset + length)])) }
                offset += length
            }
            return JPEGMetadata.assembleICC(payloads)
        }
    }
}
