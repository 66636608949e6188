import CoderGIF
import FuzzSupport

/// GIF (still and animated) decoding: whole, thumbnail, and progressive in random chunks where the coder has it.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    DecodeHarness.run(GIFCoder(), fuzzInput(start, count))
    return 0
}

runFuzzer { fuzz($0, $1) }
