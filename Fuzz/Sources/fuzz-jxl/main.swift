import CoderJXL
import FuzzSupport

/// JPEG XL decoding through libjxl on the calling thread: every frame, whole and thumbnail.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    DecodeHarness.run(JXLCoder(threads: 0), fuzzInput(start, count))
    return 0
}

runFuzzer { fuzz($0, $1) }
