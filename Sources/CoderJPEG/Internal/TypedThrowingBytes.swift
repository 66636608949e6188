import Foundation
import ImageKernel

// The standard library's `withUnsafe…Bytes` are `rethrows`, which erases a typed error to
// `any Error`. These keep `ImageKernelError` typed through the closure.

extension Data {
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ImageKernelError) -> R) throws(ImageKernelError) -> R {
        let result = withUnsafeBytes { bytes in Result { () throws(ImageKernelError) in try body(bytes) } }
        return try result.get()
    }
}

extension Array where Element == UInt8 {
    mutating func withMutableBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws(ImageKernelError) -> R
    ) throws(ImageKernelError) -> R {
        let result = withUnsafeMutableBytes { bytes in Result { () throws(ImageKernelError) in try body(bytes) } }
        return try result.get()
    }
}
