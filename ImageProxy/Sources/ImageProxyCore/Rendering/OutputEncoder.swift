import Foundation
import ImageKernel
import Transformers

/// Encodes a result with a request's output options over the service's defaults: the quality
/// (the request's, else the format's default), progressive JPEG or interlaced PNG, the byte
/// budget of `max_bytes`, and the service's metadata policy (``ProxyConfiguration/metadataPolicy``).
///
/// `max_bytes` (as imgproxy's): a JPEG, WebP or AVIF result over the budget is encoded again at
/// lower qualities, by bisection between 1 and the quality asked for, at most
/// ``maxBudgetEncodes`` times more; the result is the one at the highest quality tried that fits,
/// else the smallest one tried (imgproxy also answers with its last try rather than an error).
/// Other formats (lossless, or without a quality) are encoded once and the budget does not apply.
struct OutputEncoder: Sendable {
    let output: ProxyRequest.Output
    let defaults: ProxyConfiguration

    /// Extra encodes `max_bytes` may spend: the bisection of 1…100 to within two quality steps.
    static let maxBudgetEncodes = 6
    /// The formats `max_bytes` lowers the quality of.
    static let budgeted: Set<ImageFormat> = [.jpeg, .webp, .avif]

    /// The quality of a `format` result.
    func quality(for format: ImageFormat) -> Int { output.quality ?? output.formatQuality[format] ?? defaults.quality(for: format) }

    /// The encode options of a `format` result at `quality`; `background` (the spec's
    /// `background` colour) is what a format without alpha flattens over, instead of white.
    func options(for format: ImageFormat, quality: Int? = nil, background: RGBAColor? = nil) -> EncodeOptions {
        var options = EncodeOptions(quality: Double(quality ?? self.quality(for: format)) / 100, metadata: defaults.metadataPolicy)
        options.progressive = output.progressive ?? defaults.progressive(for: format)
        if let background { options.backgroundColor = RGBColor(red: background.red, green: background.green, blue: background.blue) }
        return options
    }

    /// `image` encoded as `format`, within `max_bytes` where it applies.
    func encode(_ image: Image, as format: ImageFormat, coders: CoderRegistry, background: RGBAColor? = nil) throws(ImageKernelError) -> Data {
        let quality = quality(for: format)
        let first = try coders.encode(image, as: format, options: options(for: format, quality: quality, background: background))
        guard let budget = output.maxBytes, first.count > budget, Self.budgeted.contains(format) else { return first }
        var smallest = first
        var fitting: Data?
        var low = 1, high = quality - 1, encodes = 0
        while low <= high && encodes < Self.maxBudgetEncodes {
            let middle = (low + high) / 2
            let attempt = try coders.encode(image, as: format, options: options(for: format, quality: middle, background: background))
            encodes += 1
            if attempt.count <= budget {
                fitting = attempt
                low = middle + 1
            } else {
                if attempt.count < smallest.count { smallest = attempt }
                high = middle - 1
            }
        }
        return fitting ?? smallest
    }
}
