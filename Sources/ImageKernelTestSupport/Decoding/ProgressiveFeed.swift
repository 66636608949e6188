import Foundation
import ImageKernel

extension ProgressiveImageCoder {
    /// Feeds `data` to a new progressive decoder `chunk` bytes at a time, as a slow network
    /// would, and returns every image it handed back (previews, then the final image), in order.
    public func imagesFedInChunks(_ data: Data, chunk: Int, options: DecodeOptions = DecodeOptions()) throws(ImageKernelError) -> [Image] {
        let decoder = makeProgressiveDecoder(options: options)
        var images: [Image] = []
        var offset = 0
        while offset < data.count {
            if let image = try decoder.append(data.subdata(in: offset..<min(data.count, offset + chunk))) { images.append(image) }
            offset += chunk
        }
        return images
    }
}
