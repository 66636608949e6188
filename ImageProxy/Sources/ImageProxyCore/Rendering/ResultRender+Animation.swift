import Foundation
import ImageKernel

extension ResultRender {
    /// An animated source's frames as imgproxy loads and checks them (its `processing.go` and
    /// `security/checker.go`): the first ``ProxyConfiguration/maxAnimationFrames`` frames are
    /// kept (the ones after them are never decoded); then, with more than one frame kept, a frame
    /// over ``ProxyConfiguration/maxAnimationFramePixels`` (when that is set) is refused, else
    /// the frames kept over ``ProxyConfiguration/maxSourcePixels`` in all are. A refusal is
    /// `pixelLimitExceeded`, which imgproxy's grammar answers with its 422 `Invalid source image`
    /// (and the native grammar with 413, as for a still over the limit).
    ///
    /// - Returns: the animation (or a one-frame source as a still), or nil when a frame kept fails
    ///   otherwise (broken or cut; a GIF cut after the frames kept decodes, its later frames not
    ///   read): the caller then decodes the first frame as a still.
    ///   imgproxy's libvips loads without `fail_on`, so it too answers such a file with an image,
    ///   not an error.
    static func decodeAnimation(_ data: Data, options: DecodeOptions, coders: CoderRegistry, limits: ProxyConfiguration) throws(ImageKernelError) -> Image? {
        var animation = options
        animation.firstFrameOnly = false
        animation.maxFrameCount = limits.maxAnimationFrames
        animation.framesOverLimit = .keepFirst
        animation.shrinkOnLoad = nil  // the checks below read the frames' size from the decode
        let framePixels = limits.maxAnimationFramePixels
        if framePixels > 0 {
            // imgproxy checks each frame against this and not the source resolution, but a source
            // of one frame against the source resolution: the decode allows the larger, the check
            // below tells them apart once the frames are counted. The budget bounds what a source
            // refused there may allocate.
            animation.pixelLimit = max(framePixels, limits.maxSourcePixels)
            let (all, overflow) = framePixels.multipliedReportingOverflow(by: limits.maxAnimationFrames)
            animation.animationPixelLimit = overflow ? Int.max : all
        } else {
            animation.animationPixelLimit = limits.maxSourcePixels
        }
        let image: Image
        do throws(ImageKernelError) {
            image = try coders.decode(data, options: animation)
        } catch where error.code == .pixelLimitExceeded {
            throw ImageKernelError(
                stage: .decode, plugin: error.plugin, code: .pixelLimitExceeded,
                message: "\(framePixels > 0 ? "Source image frame resolution is too big" : "Source image resolution is too big"): \(error.message)")
        } catch {
            return nil
        }
        let pixels = image.width * image.height
        if image.isAnimated && framePixels > 0 {
            if pixels > framePixels {
                throw ImageKernelError(
                    stage: .decode, code: .pixelLimitExceeded,
                    message: "Source image frame resolution is too big: frames of \(image.width)x\(image.height), more than \(framePixels) pixels")
            }
        } else {
            let (total, overflow) = pixels.multipliedReportingOverflow(by: image.frameCount)
            if overflow || total > limits.maxSourcePixels {
                throw ImageKernelError(
                    stage: .decode, code: .pixelLimitExceeded,
                    message: "Source image resolution is too big: \(image.frameCount) frames of \(image.width)x\(image.height), more than \(limits.maxSourcePixels) pixels")
            }
        }
        return image
    }
}
