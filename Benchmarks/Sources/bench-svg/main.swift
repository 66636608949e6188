import BenchSupport
import CBenchSVG
import CoderSVG
import Foundation
import ImageKernel

// CoderSVG benchmarks: 256 px renders (a thumbnail: the document drawn at the box) of two
// generated 1200x900 documents — an illustration of 400 gradient-filled bezier shapes, and the
// same with a drop shadow (blur, offset, merge) on every group — against librsvg called directly
// from C (CBenchSVG: parse, render_document scaled into a cairo surface, un-premultiply; goal
// >= 0.95x: CoderSVG adds its budget scan and nothing else), and against libvips 8.18's thumbnail
// of the same SVG in process (pyvips, Benchmarks/peers/setup.sh; its loader renders through
// librsvg at the target scale too; goal >= 1x).

let rounds = Options.int("--rounds", 15)
let box = PixelSize(width: 256, height: 256)

/// A deterministic document: `shapes` closed cubic paths in 8 groups, 4 gradients.
func illustration(shapes: Int, shadow: Bool) -> Data {
    var seed: UInt64 = 0x5EED
    func next(_ range: Double) -> Double {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return Double(seed >> 33) / Double(1 << 31) * range
    }
    func color() -> String { String(format: "%06x", Int(next(16_777_215))) }
    var svg = "<?xml version='1.0' encoding='UTF-8'?><svg xmlns='http://www.w3.org/2000/svg' width='1200' height='900' viewBox='0 0 1200 900'><defs>"
    for i in 0..<4 {
        svg += "<linearGradient id='l\(i)' x1='0' y1='0' x2='1' y2='1'><stop offset='0' stop-color='#\(color())'/><stop offset='1' stop-color='#\(color())' stop-opacity='0.8'/></linearGradient>"
        svg += "<radialGradient id='r\(i)'><stop offset='0' stop-color='#\(color())'/><stop offset='1' stop-color='#\(color())'/></radialGradient>"
    }
    if shadow {
        svg += "<filter id='s'><feGaussianBlur in='SourceAlpha' stdDeviation='6'/><feOffset dx='8' dy='8' result='b'/><feMerge><feMergeNode in='b'/><feMergeNode in='SourceGraphic'/></feMerge></filter>"
    }
    svg += "</defs><rect width='1200' height='900' fill='#f4f1ea'/>"
    for group in 0..<8 {
        svg += shadow ? "<g filter='url(#s)'>" : "<g>"
        for _ in 0..<(shapes / 8) {
            let (x, y) = (next(1100), next(800))
            var d = String(format: "M%.1f %.1f", x, y)
            for _ in 0..<4 {
                d += String(format: " C%.1f %.1f %.1f %.1f %.1f %.1f", x + next(200) - 100, y + next(200) - 100, x + next(200) - 100, y + next(200) - 100, x + next(160) - 80, y + next(160) - 80)
            }
            let fill = group % 2 == 0 ? "url(#l\(group / 2))" : "url(#r\(group / 2))"
            svg += "<path d='\(d) Z' fill='\(fill)' stroke='#222' stroke-width='\(String(format: "%.1f", 0.5 + next(2)))' fill-opacity='0.85'/>"
        }
        svg += "</g>"
    }
    svg += "</svg>"
    return Data(svg.utf8)
}

let vipsPython = ProcessInfo.processInfo.environment["HOME"].map { "\($0)/.cache/imagekernel-peers/vips/bin/python" }
print("bench-svg: CoderSVG vs \(String(cString: cbenchsvg_version())) called from C (CBenchSVG) and libvips' thumbnail, 256 px, \(rounds) rounds")
for (name, shadow) in [("illustration", false), ("illustration with drop shadows", true)] {
    let fileName = "svg-\(shadow ? "shadow" : "plain")-1200x900.svg"
    let data = try FixtureCache.data(fileName) { illustration(shapes: 400, shadow: shadow) }
    let options = DecodeOptions(thumbnailPixelSize: box)
    let ours = try SVGCoder().decode(data, options: options)
    var baseline = [UInt8](repeating: 0, count: ours.width * ours.height * 4)
    let status = data.withUnsafeBytes { raw in
        cbenchsvg_render(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, Int32(ours.width), Int32(ours.height), &baseline)
    }
    precondition(status == 0 && baseline == ours.pixels, "\(name): CoderSVG and librsvg from C differ")
    let pair = Measure.paired(rounds: rounds) {
        _ = try! SVGCoder().decode(data, options: options)
    } baseline: {
        _ = data.withUnsafeBytes { raw in
            cbenchsvg_render(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, Int32(ours.width), Int32(ours.height), &baseline)
        }
    }
    report("\(name) \(data.count / 1024) KiB -> \(ours.width)x\(ours.height) vs librsvg from C", ours: pair.ours, baseline: pair.baseline, goal: "goal >= 0.95x")
    if let python = vipsPython, FileManager.default.isExecutableFile(atPath: python) {
        let script = benchmarksDirectory().appendingPathComponent("Scripts/vips_thumbnail.py").path
        let file = FixtureCache.directory.appendingPathComponent(fileName).path
        let fields = try Peers.run(python, [script, "\(rounds)", file, "256"]).split(separator: "\t")
        if let vips = fields.first.flatMap({ Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) {
            let size = fields.dropFirst().prefix(2).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: "x")
            report("\(name) -> 256 px vs libvips thumbnail (\(size))", ours: pair.ours, baseline: vips, goal: "goal >= 1x")
        }
    } else {
        print("\(name): no pyvips (run Benchmarks/peers/setup.sh)")
    }
}
