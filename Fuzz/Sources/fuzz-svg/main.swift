import CoderSVG
import FuzzSupport

/// SVG rendering through librsvg: the budget scan, librsvg's parse and render, whole and thumbnail.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    DecodeHarness.run(SVGCoder(), fuzzInput(start, count))
    return 0
}

runFuzzer { fuzz($0, $1) }
