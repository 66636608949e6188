import Foundation
import FuzzSupport
import ImageKernel

/// Format sniffing, from `Data`, a byte array and a raw buffer: the three must agree.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = fuzzInput(start, count)
    let fromData = ImageFormat.sniff(data)
    let fromArray = ImageFormat.sniff([UInt8](data))
    let fromBuffer = data.withUnsafeBytes { ImageFormat.sniff($0) }
    precondition(fromData == fromArray && fromArray == fromBuffer, "sniffing disagrees: \(fromData) \(fromArray) \(fromBuffer)")
    return 0
}

runFuzzer { fuzz($0, $1) }
