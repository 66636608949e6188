import CoderTIFF
import FuzzSupport

/// TIFF decoding through libtiff: every page (TIFFCoder(pages: .all)), whole and thumbnail.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    DecodeHarness.run(TIFFCoder(pages: .all), fuzzInput(start, count))
    return 0
}

runFuzzer { fuzz($0, $1) }
