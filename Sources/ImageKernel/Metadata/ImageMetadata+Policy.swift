extension ImageMetadata {
    /// The metadata an encoder writes under `policy` for an image whose orientation is now
    /// `orientation` (see ``MetadataPolicy``).
    ///
    /// Never throws: a block that does not parse (a lying count or offset, a loop, a truncated
    /// structure) is dropped, never written as it came and never a crash. With
    /// ``MetadataPolicy/all`` a well-formed EXIF block keeps its bytes (maker notes included),
    /// with only its Orientation value rewritten.
    public func written(by policy: MetadataPolicy, orientation: ExifOrientation) -> ImageMetadata {
        let block = exif.flatMap { try? EXIFBlock(bytes: $0) }
        switch policy {
        case .none:
            return ImageMetadata(exif: EXIFBlock.minimal(orientation: orientation, entries: []))
        case .copyright:
            let kept = block.map { block in
                [EXIFBlock.Tag.artist, EXIFBlock.Tag.copyright].compactMap { block.entry($0, in: .ifd0) }
            } ?? []
            return ImageMetadata(
                exif: EXIFBlock.minimal(orientation: orientation, entries: kept, bigEndian: block?.bigEndian ?? true),
                xmp: xmp.flatMap(XMPPacket.copyright(of:)),
                iptc: iptc.flatMap { IPTCRecords.filtered($0, keeping: IPTCRecords.copyrightDataSets) })
        case .all:
            let exifOut: [UInt8]?
            if let block {
                exifOut = block.withOrientation(orientation)
            } else {
                exifOut = EXIFBlock.minimal(orientation: orientation, entries: [])
            }
            return ImageMetadata(
                exif: exifOut,
                xmp: xmp.map { XMPPacket.settingOrientation($0, to: orientation) },
                iptc: iptc.flatMap { IPTCRecords.filtered($0, keeping: nil) })
        }
    }
}
