import Foundation
import ImageKernel

/// The coder `convert` decodes with when its transform starts with a resize: the registry's
/// coder, with the resize's ``ShrinkOnLoad`` passed to vector sources (SVG), so a document is
/// drawn at the box the resize needs instead of rasterised at its own size and scaled. Raster
/// sources decode as they always have (full size, then the resize).
struct VectorShrinkCoder: ImageCoder {
    let coders: CoderRegistry
    let shrinkOnLoad: ShrinkOnLoad
    var name: String { "imagekernel-convert" }

    func canDecode(_ data: Data) -> Bool { coders.coder(forDecoding: data) != nil }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        guard let coder = coders.coder(forDecoding: data) else {
            throw ImageKernelError(
                stage: .decode, code: .noCoder, message: "no registered coder decodes \(ImageFormat.sniff(data)) data (\(data.count) bytes)")
        }
        var options = options
        if ImageFormat.sniff(data) == .svg && options.thumbnailPixelSize == nil { options.shrinkOnLoad = shrinkOnLoad }
        return try coder.decode(data, options: options)
    }
}
