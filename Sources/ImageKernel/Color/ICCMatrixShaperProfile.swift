/// The chromaticities of an RGB space: CIE 1931 xy of its red, green and blue primaries and of
/// its white point, as PNG's `cHRM` chunk gives them.
public struct Chromaticities: Hashable, Sendable {
    public var white: (x: Double, y: Double)
    public var red: (x: Double, y: Double)
    public var green: (x: Double, y: Double)
    public var blue: (x: Double, y: Double)

    public init(white: (x: Double, y: Double), red: (x: Double, y: Double), green: (x: Double, y: Double), blue: (x: Double, y: Double)) {
        self.white = white
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// sRGB's (BT.709 primaries, D65 white).
    public static let sRGB = Chromaticities(white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06))

    /// Whether every coordinate is within `tolerance` of `other`'s.
    public func isClose(to other: Chromaticities, tolerance: Double = 0.001) -> Bool {
        let a = [white, red, green, blue], b = [other.white, other.red, other.green, other.blue]
        return zip(a, b).allSatisfy { abs($0.x - $1.x) <= tolerance && abs($0.y - $1.y) <= tolerance }
    }

    /// Whether the primaries and white point make an RGB space: every y above zero and the three
    /// primaries not on one line.
    public var isValid: Bool {
        let all = [white, red, green, blue]
        guard all.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.x >= 0 && $0.y > 0 && $0.x + $0.y <= 1.0001 }) else { return false }
        return (try? ICCMatrixShaperProfile.rgbToXYZ(self)) != nil
    }

    public static func == (l: Chromaticities, r: Chromaticities) -> Bool {
        l.white == r.white && l.red == r.red && l.green == r.green && l.blue == r.blue
    }

    public func hash(into hasher: inout Hasher) {
        for point in [white, red, green, blue] {
            hasher.combine(point.x)
            hasher.combine(point.y)
        }
    }
}

/// Builds a small ICC profile (version 2.1, display class) for an RGB space given by its
/// chromaticities and a pure power-law transfer: what PNG's `cHRM` and `gAMA` chunks describe.
/// Coders that read such chunks carry this profile in ``Image/iccProfile``, so any
/// ``ColorConverter`` can convert from it and every output format can carry it.
///
/// The colorants are adapted to the profile connection space's D50 white with the Bradford
/// transform, as ICC version 2 requires; the media white point tag keeps the space's own white.
public enum ICCMatrixShaperProfile {
    /// The profile bytes, or nil when the chromaticities do not make an RGB space or the gamma
    /// is not in 0.1…10.
    /// - Parameters:
    ///   - chromaticities: the primaries and white point.
    ///   - gamma: the decoding exponent (linear = encoded^gamma): 2.2 for PNG's `gAMA` of 45455.
    ///   - description: the profile's description tag.
    public static func make(chromaticities: Chromaticities, gamma: Double, description: String = "ImageKernel RGB") -> [UInt8]? {
        guard gamma.isFinite, gamma >= 0.1, gamma <= 10, chromaticities.isValid,
              let matrix = try? rgbToXYZ(chromaticities) else { return nil }
        let white = xyz(chromaticities.white)
        let adapted = multiply(bradford(from: white, to: d50), matrix)
        let gammaFixed = UInt16(min(65535, (gamma * 256).rounded()))
        let curve: [UInt8] = ascii("curv") + [0, 0, 0, 0] + be32(1) + be16(gammaFixed) + [0, 0]
        var tags: [(String, [UInt8])] = [
            ("desc", textDescription(description)),
            ("cprt", ascii("text") + [0, 0, 0, 0] + ascii("No copyright, use freely") + [0]),
            ("wtpt", xyzTag(white)),
        ]
        for (index, name) in ["rXYZ", "gXYZ", "bXYZ"].enumerated() {
            tags.append((name, xyzTag((adapted[0][index], adapted[1][index], adapted[2][index]))))
        }
        tags += [("rTRC", curve), ("gTRC", curve), ("bTRC", curve)]

        var table: [UInt8] = be32(UInt32(tags.count))
        var data: [UInt8] = []
        let dataStart = 128 + 4 + 12 * tags.count
        var curveOffset: Int?
        for (name, bytes) in tags {
            // The three TRC tags share one curve, as profile writers usually do.
            let offset: Int
            if name.hasSuffix("TRC"), let shared = curveOffset {
                offset = shared
            } else {
                while data.count % 4 != 0 { data.append(0) }
                offset = dataStart + data.count
                data += bytes
                if name.hasSuffix("TRC") { curveOffset = offset }
            }
            table += ascii(name) + be32(UInt32(offset)) + be32(UInt32(bytes.count))
        }
        while data.count % 4 != 0 { data.append(0) }
        let size = dataStart + data.count
        var header = be32(UInt32(size)) + [0, 0, 0, 0] + [0x02, 0x10, 0, 0]
        header += ascii("mntr") + ascii("RGB ") + ascii("XYZ ")
        header += [UInt8](repeating: 0, count: 12)  // date and time: not recorded
        header += ascii("acsp") + [UInt8](repeating: 0, count: 4 + 4 + 4 + 4 + 8 + 4)
        header += xyzNumber(d50)
        header += [UInt8](repeating: 0, count: 4 + 16 + 28)
        return header + table + data
    }

    // MARK: - Colour math

    static let d50 = (0.9642, 1.0, 0.8249)

    static func xyz(_ point: (x: Double, y: Double)) -> (Double, Double, Double) {
        (point.x / point.y, 1, (1 - point.x - point.y) / point.y)
    }

    struct Singular: Error {}

    /// The matrix taking linear RGB to XYZ with the white at Y = 1.
    static func rgbToXYZ(_ c: Chromaticities) throws(Singular) -> [[Double]] {
        let r = xyz(c.red), g = xyz(c.green), b = xyz(c.blue), w = xyz(c.white)
        let primaries = [[r.0, g.0, b.0], [r.1, g.1, b.1], [r.2, g.2, b.2]]
        guard let inverse = invert(primaries) else { throw Singular() }
        let s = [w.0, w.1, w.2]
        let scale = (0..<3).map { i in (0..<3).reduce(0.0) { $0 + inverse[i][$1] * s[$1] } }
        guard scale.allSatisfy({ $0.isFinite && $0 > 0 }) else { throw Singular() }
        return primaries.map { row in (0..<3).map { row[$0] * scale[$0] } }
    }

    /// Bradford chromatic adaptation from one white to another (XYZ).
    static func bradford(from source: (Double, Double, Double), to target: (Double, Double, Double)) -> [[Double]] {
        let m = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
        let inverse = invert(m)!
        let s = apply(m, source), t = apply(m, target)
        let diagonal = [[t.0 / s.0, 0, 0], [0, t.1 / s.1, 0], [0, 0, t.2 / s.2]]
        return multiply(inverse, multiply(diagonal, m))
    }

    static func apply(_ m: [[Double]], _ v: (Double, Double, Double)) -> (Double, Double, Double) {
        let x = [v.0, v.1, v.2]
        let r = (0..<3).map { i in (0..<3).reduce(0.0) { $0 + m[i][$1] * x[$1] } }
        return (r[0], r[1], r[2])
    }

    static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0.0) { $0 + a[i][$1] * b[$1][j] } } }
    }

    static func invert(_ m: [[Double]]) -> [[Double]]? {
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        guard det.isFinite, abs(det) > 1e-12 else { return nil }
        func c(_ r: Int, _ k: Int) -> Double {
            let rows = (0..<3).filter { $0 != r }, cols = (0..<3).filter { $0 != k }
            let minor = m[rows[0]][cols[0]] * m[rows[1]][cols[1]] - m[rows[0]][cols[1]] * m[rows[1]][cols[0]]
            return ((r + k) % 2 == 0 ? 1 : -1) * minor
        }
        return (0..<3).map { i in (0..<3).map { j in c(j, i) / det } }
    }

    // MARK: - Encoding

    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }

    static func s15Fixed16(_ v: Double) -> [UInt8] {
        be32(UInt32(bitPattern: Int32((max(-32768, min(32767.99998, v)) * 65536).rounded())))
    }

    static func xyzNumber(_ v: (Double, Double, Double)) -> [UInt8] { s15Fixed16(v.0) + s15Fixed16(v.1) + s15Fixed16(v.2) }
    static func xyzTag(_ v: (Double, Double, Double)) -> [UInt8] { ascii("XYZ ") + [0, 0, 0, 0] + xyzNumber(v) }

    /// ICC v2 `textDescriptionType`: ASCII, then empty Unicode and ScriptCode parts.
    static func textDescription(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8.filter { $0 < 0x80 }.prefix(200)) + [0]
        return ascii("desc") + [0, 0, 0, 0] + be32(UInt32(bytes.count)) + bytes + be32(0) + be32(0) + be16(0) + [0]
            + [UInt8](repeating: 0, count: 67)
    }
}
