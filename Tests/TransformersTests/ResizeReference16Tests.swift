import Foundation
import ImageKernel
import Testing
import Transformers

/// 16-bit gray resize against Pillow's `I;16` resize (fixtures made by Reference/make_references.py).
@Suite("16-bit resize against Pillow")
struct ResizeReference16Tests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String, filter: String
        var source: PixelSize, output: PixelSize
        var expected: [UInt16]
        var description: String { "\(name) \(filter) \(source)→\(output)" }
    }

    static let cases: [Case] = {
        guard let table = try? String(contentsOf: referenceDirectory.appendingPathComponent("pillow-resize16.tsv"), encoding: .utf8),
              let blob = try? Data(contentsOf: referenceDirectory.appendingPathComponent("pillow-resize16.bin"))
        else { return [] }
        return table.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: "\t").map(String.init)
            let n = f[3...8].map { Int($0)! }
            let bytes = [UInt8](blob[n[4]..<(n[4] + n[5])])
            return Case(
                name: f[0], filter: f[2], source: PixelSize(width: n[0], height: n[1]), output: PixelSize(width: n[2], height: n[3]),
                expected: stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 })
        }
    }()

    /// make_references.py's `sample16`: the 8-bit gray pattern in the high byte, another in the low byte.
    static func pattern(width w: Int, height h: Int) -> [UInt8] {
        let gray = referencePattern(width: w, height: h, channels: 1)
        var bytes = [UInt8](repeating: 0, count: w * h * 2)
        for y in 0..<h {
            for x in 0..<w {
                let value = UInt16(gray[y * w + x]) << 8 | UInt16((x * 37 + y * 101) % 256)
                withUnsafeBytes(of: value) { bytes[2 * (y * w + x)] = $0[0]; bytes[2 * (y * w + x) + 1] = $0[1] }
            }
        }
        return bytes
    }

    static func differences(_ c: Case) throws -> [Int] {
        let input = try Image(
            width: c.source.width, height: c.source.height, pixelFormat: .gray16, pixels: pattern(width: c.source.width, height: c.source.height))
        let resize = ResizeTransformer(
            .stretch, width: c.output.width, height: c.output.height, filter: ResamplingFilter(name: c.filter)!, allowsEnlarging: true)
        let ours = try resize.transform(input)
        #expect(ours.pixelFormat == .gray16 && ours.width == c.output.width && ours.height == c.output.height)
        let samples = ours.pixels.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        try #require(samples.count == c.expected.count)
        return zip(samples, c.expected).map { abs(Int($0) - Int($1)) }
    }

    @Test func theFixturesAreThere() {
        #expect(Self.cases.count == 7 * 4)
    }

    /// Within ±2 of 65,535 on almost every sample: the 8-bit test's bound, 256 times finer.
    @Test(arguments: cases)
    func matchesPillowWithinTwoOnAlmostEverySample(_ c: Case) throws {
        let d = try Self.differences(c)
        let far = d.filter { $0 > 2 }.count
        #expect(Double(far) <= Double(d.count) * 0.001, "\(far) of \(d.count) samples differ by more than 2 (max \(d.max() ?? 0))")
    }

    @Test func differencesPerFilterAreSmall() throws {
        var report: [String] = []
        for filter in ResamplingFilter.allCases {
            var all: [Int] = []
            for c in Self.cases where c.filter == filter.rawValue { all += try Self.differences(c) }
            let mean = Double(all.reduce(0, +)) / Double(max(1, all.count))
            report.append("\(filter.rawValue): max \(all.max() ?? 0) mean \(String(format: "%.4f", mean)) over \(all.count) samples")
            #expect(mean < 0.5, "\(filter.rawValue): mean difference \(mean)")
        }
        print("16-bit resize vs Pillow — " + report.joined(separator: "; "))
    }
}
