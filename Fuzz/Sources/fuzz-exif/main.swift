import FuzzSupport
import ImageKernel

/// Hostile metadata (lying counts and offsets, IFD loops, overlapping values, truncated IPTC
/// records, broken XMP) through the metadata policy: the input as an EXIF block, an XMP packet
/// and IPTC records, under every policy, orientation applied or not. Every outcome must be
/// metadata or dropped metadata; what the policy writes must parse again.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = [UInt8](fuzzInput(start, count))
    if let block = try? EXIFBlock(bytes: bytes) {
        _ = block.string(EXIFBlock.Tag.copyright, in: .ifd0)
        _ = block.unsigned(EXIFBlock.Tag.orientation, in: .ifd0)
    }
    let metadata = ImageMetadata(exif: bytes, xmp: bytes, iptc: bytes)
    for policy in MetadataPolicy.allCases {
        for orientation in [ExifOrientation.up, .left] {
            let written = metadata.written(by: policy, orientation: orientation)
            if let exif = written.exif, (try? EXIFBlock(bytes: exif)) == nil {
                fatalError("the \(policy) policy wrote an EXIF block that does not parse")
            }
        }
    }
    return 0
}

runFuzzer { fuzz($0, $1) }
