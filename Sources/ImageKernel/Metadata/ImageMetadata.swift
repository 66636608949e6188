/// The metadata an image carries besides its pixels and colour description: the EXIF, XMP and
/// IPTC blocks as the source file stored them.
///
/// Decoders fill what their format holds (see <doc:KeepingMetadata>); encoders write what
/// ``EncodeOptions/metadata`` lets through (``written(by:orientation:)``). The blocks are kept as
/// bytes, so a pipeline that does not look at them pays nothing to parse them.
public struct ImageMetadata: Sendable, Hashable {
    /// The EXIF block: a TIFF structure from its byte-order mark on (`II*\0` or `MM\0*`), without
    /// JPEG's `Exif\0\0` prefix.
    public var exif: [UInt8]?
    /// The XMP packet: UTF-8 XML, `<?xpacket …?>` wrapper included when the file had one.
    public var xmp: [UInt8]?
    /// The IPTC-IIM records (`0x1C` record dataset length value …), as Photoshop's image
    /// resource 0x0404 holds them.
    public var iptc: [UInt8]?

    public init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil, iptc: [UInt8]? = nil) {
        self.exif = exif
        self.xmp = xmp
        self.iptc = iptc
    }

    /// Whether no block is present (an empty block counts as absent).
    public var isEmpty: Bool {
        (exif ?? []).isEmpty && (xmp ?? []).isEmpty && (iptc ?? []).isEmpty
    }
}

/// Which metadata an encoder writes (``EncodeOptions/metadata``).
///
/// Whatever the policy, the output's EXIF Orientation is the image's ``Image/orientation``: a
/// pipeline that rotated the pixels (`OrientTransformer`) has set it to ``ExifOrientation/up``,
/// so the tag is reset to 1 (or left out), and an image still carrying an unapplied orientation
/// keeps it, since without it the pixels would show turned. The ICC profile and CICP are colour
/// description, not metadata: they are written whatever the policy.
public enum MetadataPolicy: String, Sendable, Hashable, CaseIterable {
    /// No EXIF, XMP or IPTC (only an EXIF Orientation for an image whose orientation was not
    /// applied). GPS, camera serial numbers and editing history never leave.
    case none
    /// Only who owns the image and who made it: EXIF Copyright (0x8298) and Artist (0x013B),
    /// XMP `dc:rights`, `dc:creator` and the `xmpRights:` properties, IPTC copyright notice
    /// (2:116) and by-line (2:80). imgproxy's `IMGPROXY_KEEP_COPYRIGHT`.
    case copyright
    /// Everything the source had, GPS included, with the orientation as the image now has it.
    case all
}
