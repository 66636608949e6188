import Foundation
import ImageKernel

extension CoderConformance {
    /// Scaling down is no way around the limits: a source over the ceiling is refused (the coder
    /// would read all of it), and what a scale-down delivers fits the pixel limit.
    func checkRefusesScaleDownPastCeiling(_ context: CaseContext) throws(ConformanceFailure) {
        for fixture in try fixturesOverOnePixel(context) {
            let pixels = fixture.width * fixture.height
            var options = decodeOptions
            options.thumbnailPixelSize = nil
            options.scaleDownLargeImages = true
            options.pixelLimit = pixels - 1
            options.scaleDownSourcePixelLimit = pixels - 1
            let over = "\(fixture.described) scaled down with pixel limit and scale-down ceiling \(pixels - 1)"
            switch decode(fixture.data, options) {
            case .success(let image):
                throw context.failure(over, "decode returned \(image.width)x\(image.height) instead of throwing pixelLimitExceeded")
            case .failure(let error) where error.code != .pixelLimitExceeded:
                throw context.failure(over, "expected code pixel_limit_exceeded", underlying: error)
            case .failure:
                break
            }
            options.scaleDownSourcePixelLimit = pixels
            let within = "\(fixture.described) scaled down with pixel limit \(pixels - 1) and scale-down ceiling \(pixels)"
            switch decode(fixture.data, options) {
            case .success(let image):
                if let problem = ImageShape.problem(image) { throw context.failure(within, problem) }
                if image.width * image.height > options.pixelLimit {
                    throw context.failure(within, "decoded \(image.width)x\(image.height), over the pixel limit \(options.pixelLimit)")
                }
            case .failure(let error) where error.code != .pixelLimitExceeded:
                throw context.failure(within, "expected a scaled-down image or pixel_limit_exceeded", underlying: error)
            case .failure:
                break  // a coder that never scales down refuses the source as over the pixel limit
            }
        }
    }
}
