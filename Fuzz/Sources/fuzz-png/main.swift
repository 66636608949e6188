import CoderPNG
import FuzzSupport

/// PNG decoding: whole, thumbnail, and progressive in random chunks where the coder has it.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    DecodeHarness.run(PNGCoder(), fuzzInput(start, count))
    return 0
}

runFuzzer { fuzz($0, $1) }
