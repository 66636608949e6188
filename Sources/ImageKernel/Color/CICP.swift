/// Coding-independent code points (ITU-T H.273): how a file says what its colours mean without
/// an ICC profile. HEIF and AVIF carry them in an `nclx` colour box, PNG in a `cICP` chunk, JPEG XL
/// in its colour encoding.
///
/// Only the values H.273 defines are named here; any other value is kept as the file gave it,
/// and a ``ColorConverter`` that cannot build a profile for it says so with a typed error.
public struct CICP: Hashable, Sendable, CustomStringConvertible {
    /// Colour primaries (H.273 table 2): 1 BT.709/sRGB, 9 BT.2020, 12 Display P3 (SMPTE EG 432-1), …
    public var colourPrimaries: UInt8
    /// Transfer characteristics (table 3): 13 sRGB, 1/6/14/15 BT.709, 8 linear, 16 PQ, 18 HLG, …
    public var transferCharacteristics: UInt8
    /// Matrix coefficients (table 4) used to code the samples: 0 identity (RGB), 1 BT.709, 6 BT.601, …
    /// Decoders have applied it by the time an ``Image`` exists; it is kept for re-encoding.
    public var matrixCoefficients: UInt8
    /// Whether the samples use the full range (0…255) rather than the video range (16…235).
    public var fullRange: Bool

    public init(colourPrimaries: UInt8, transferCharacteristics: UInt8, matrixCoefficients: UInt8, fullRange: Bool) {
        self.colourPrimaries = colourPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.fullRange = fullRange
    }

    /// sRGB as code points: BT.709 primaries, the sRGB transfer, RGB samples, full range.
    public static let sRGB = CICP(colourPrimaries: 1, transferCharacteristics: 13, matrixCoefficients: 0, fullRange: true)
    /// Display P3: P3 primaries with a D65 white point and the sRGB transfer.
    public static let displayP3 = CICP(colourPrimaries: 12, transferCharacteristics: 13, matrixCoefficients: 0, fullRange: true)

    /// Whether the colours are sRGB's (or unspecified, 2, which means sRGB on the web): BT.709
    /// primaries (1) or unspecified, and the sRGB transfer (13) or unspecified (2). BT.709's own
    /// transfer (1, 6, 14, 15) differs from sRGB's in the darks, so it does not count.
    public var isSRGB: Bool {
        (colourPrimaries == 1 || colourPrimaries == 2) && (transferCharacteristics == 13 || transferCharacteristics == 2)
    }

    /// `primaries/transfer/matrix/range`, e.g. `1/13/0/full`.
    public var description: String {
        "\(colourPrimaries)/\(transferCharacteristics)/\(matrixCoefficients)/\(fullRange ? "full" : "limited")"
    }
}
