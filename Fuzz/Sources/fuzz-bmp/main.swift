import CoderBMP
import FuzzSupport

/// BMP, ICO and CUR decoding (whole and thumbnail), entirely Swift: every read is bounds-checked.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    DecodeHarness.run(BMPCoder(), fuzzInput(start, count))
    return 0
}

runFuzzer { fuzz($0, $1) }
