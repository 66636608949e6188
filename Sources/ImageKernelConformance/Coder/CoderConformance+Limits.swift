import Foundation
import ImageKernel

extension CoderConformance {
    /// Thumbnail sizes tried on a `width`×`height` image: half, a non-proportional quarter ×
    /// eighth, twice the size (which must not upscale), and empty boxes (a side of zero, which
    /// mean full size: ``PixelSize/thumbnail(of:fitting:)``).
    static func thumbnailSizes(width: Int, height: Int) -> [PixelSize] {
        [
            PixelSize(width: max(1, width / 2), height: max(1, height / 2)),
            PixelSize(width: max(1, width / 4), height: max(1, height / 8)),
            PixelSize(width: width * 2, height: height * 2),
            PixelSize(width: 0, height: 0),
            PixelSize(width: 0, height: max(1, height / 2)),
        ]
    }

    /// Why `size` is not an acceptable thumbnail of a `width`×`height` image for `target`, or nil.
    static func thumbnailProblem(_ size: PixelSize, width: Int, height: Int, target: PixelSize) -> String? {
        if target.isEmpty {
            return size.width == width && size.height == height
                ? nil : "an empty thumbnail box (\(target)) means full size \(width)x\(height), got \(size)"
        }
        if target.width >= width && target.height >= height {
            return size.width == width && size.height == height
                ? nil : "a thumbnail size at least the image's size must keep \(width)x\(height), got \(size)"
        }
        guard size.width <= width, size.height <= height else { return "the thumbnail \(size) is larger than the image" }
        let expected = PixelSize.thumbnail(of: PixelSize(width: width, height: height), fitting: target)
        if size.width > target.width || size.height > target.height {
            return "the thumbnail \(size) does not fit inside \(target) (expected \(expected))"
        }
        if abs(size.width - expected.width) > 1 || abs(size.height - expected.height) > 1 {
            return "the thumbnail \(size) is not the aspect-kept fit of \(width)x\(height) in \(target) (expected \(expected))"
        }
        return nil
    }

    func checkThumbnailFitsRequestedSize(_ context: CaseContext) throws(ConformanceFailure) {
        for fixture in try requireFixtures(context) {
            for target in Self.thumbnailSizes(width: fixture.width, height: fixture.height) {
                var options = decodeOptions
                options.thumbnailPixelSize = target
                let input = "\(fixture.described) with thumbnail size \(target)"
                let image: Image
                switch decode(fixture.data, options) {
                case .success(let decoded): image = decoded
                case .failure(let error): throw context.failure(input, "decode threw", underlying: error)
                }
                if let problem = ImageShape.problem(image) { throw context.failure(input, problem) }
                let size = PixelSize(width: image.width, height: image.height)
                if let problem = Self.thumbnailProblem(size, width: fixture.width, height: fixture.height, target: target) {
                    throw context.failure(input, problem)
                }
            }
        }
    }

    /// The fixtures of at least two pixels (a limit one below theirs is still a limit), or a
    /// failure when there are none.
    func fixturesOverOnePixel(_ context: CaseContext) throws(ConformanceFailure) -> [CoderFixture] {
        let candidates = try requireFixtures(context).filter { $0.width * $0.height >= 2 }
        guard !candidates.isEmpty else {
            throw context.failure("all fixtures", "the \(context.caseName) case needs a fixture of at least 2 pixels")
        }
        return candidates
    }

    func checkRefusesImagesOverPixelLimit(_ context: CaseContext) throws(ConformanceFailure) {
        for fixture in try fixturesOverOnePixel(context) {
            let pixels = fixture.width * fixture.height
            var options = decodeOptions
            options.scaleDownLargeImages = false
            options.pixelLimit = pixels - 1
            switch decode(fixture.data, options) {
            case .success(let image):
                throw context.failure(
                    "\(fixture.described) with pixel limit \(pixels - 1)",
                    "decode returned \(image.width)x\(image.height) instead of throwing pixelLimitExceeded")
            case .failure(let error) where error.code != .pixelLimitExceeded:
                throw context.failure(
                    "\(fixture.described) with pixel limit \(pixels - 1)", "expected code pixel_limit_exceeded", underlying: error)
            case .failure:
                break
            }
            options.pixelLimit = pixels
            if case .failure(let error) = decode(fixture.data, options) {
                throw context.failure(
                    "\(fixture.described) with pixel limit \(pixels)", "an image of exactly the limit must decode", underlying: error)
            }
        }
    }
}
