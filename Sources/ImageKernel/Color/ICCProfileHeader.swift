/// What an ICC profile's 128-byte header says, read without a colour-management library.
public struct ICCProfileHeader: Hashable, Sendable {
    /// The data colour space signature, four ASCII characters: `RGB `, `GRAY`, `CMYK`, `Lab `, …
    public var colorSpace: String
    /// The device class signature: `mntr` (display), `scnr` (input), `prtr` (output), `spac`, …
    public var deviceClass: String

    /// The header of `profile`, or nil when it is shorter than a header or its declared size
    /// (bytes 0–3) does not match the bytes.
    public init?(_ profile: [UInt8]) {
        guard profile.count >= 128 else { return nil }
        let declared = profile[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard declared == profile.count else { return nil }
        func signature(_ offset: Int) -> String { String(decoding: profile[offset..<offset + 4], as: UTF8.self) }
        colorSpace = signature(16)
        deviceClass = signature(12)
    }

    /// Whether the profile describes CMYK samples.
    public var isCMYK: Bool { colorSpace == "CMYK" }
}
