import Foundation
import ImageKernel

extension DiskCache {
    /// Turns an image into the bytes a ``DiskCache`` writes, for entries that arrive with an
    /// image but no bytes (``Configuration/imageEncoder``).
    ///
    /// The disk tier keeps bytes, not pixels. Without an encoder it refuses image-only entries
    /// with `unsupported`; with one it stores what the encoder returns.
    public struct ImageEncoder: Sendable {
        private let body: @Sendable (Image) throws(ImageKernelError) -> Data

        /// An encoder that calls `body`. It may be called from many threads at once.
        public init(_ body: @escaping @Sendable (Image) throws(ImageKernelError) -> Data) {
            self.body = body
        }

        /// Encodes through the registry's coders, as the manager does for transformed images:
        /// PNG when the image has alpha, else JPEG.
        public static func registry(_ coders: CoderRegistry, options: EncodeOptions = EncodeOptions()) -> ImageEncoder {
            ImageEncoder { image throws(ImageKernelError) in
                try coders.encode(image, as: image.pixelFormat.hasAlpha ? .png : .jpeg, options: options)
            }
        }

        /// The bytes for `image`.
        public func encode(_ image: Image) throws(ImageKernelError) -> Data {
            try body(image)
        }
    }
}
