import CoderJPEG
import Foundation
import ImageKernel
import Transformers

/// The commonest request, JPEG in, a resize, JPEG out, rendered on the Y′CbCr planes as the file
/// stores them (``YCbCrImage``): no colour conversion or chroma upsampling after the decode, half
/// the samples to resample at 4:2:0, no conversion or downsampling before the encode. Measured on
/// the cold benchmark's sources (400x300 to fill 300x200), libjpeg alone: the raw decode takes
/// 0.66x the time of an RGB decode, the raw encode 0.69x.
public enum PlanarRender {
    /// Work on a pipelined render's encoded bytes that the answer need not wait for: called on
    /// the pipeline's second thread with the bytes before the decode's thread takes them, it
    /// returns what that thread does once the decode has ended (nil: nothing), told whether the
    /// decode succeeded (when it failed, the render fails with the decode's error).
    public typealias AfterEncode = @Sendable (Data) -> (@Sendable (_ decodeSucceeded: Bool) -> Void)?

    /// The resize of a spec that is only a resize (an `orient` before it changes nothing for an
    /// upright image, the only kind the planes take), or nil.
    public static func resize(of spec: TransformSpec?) -> ResizeTransformer? {
        guard let steps = spec?.steps, let last = steps.last as? ResizeTransformer else { return nil }
        return steps.dropLast().allSatisfy { $0 is OrientTransformer } ? last : nil
    }

    /// The encoded result, or nil when the planes cannot stand for the image (see
    /// `JPEGCoder.decodeYCbCr`): then the caller renders in RGB. The output is 4:2:0, as the
    /// RGB path's encoder writes it. A render that pipelines hands its bytes to `afterEncode`
    /// on its second thread (the image proxy keeps them on disk there, on the other core, while
    /// the answer goes out); not called when the render does not pipeline or fails. With
    /// `convertsColor` the resized planes are converted to sRGB from the source's profile
    /// (``ColorPolicy/convertPlanes(_:)``; nil when its direct path does not take the profile),
    /// and the render does not pipeline.
    public static func render(
        _ data: Data, resize: ResizeTransformer, quality: Int, progressive: Bool = false, limits: ProxyConfiguration,
        convertsColor: Bool = false, afterEncode: AfterEncode? = nil
    ) throws(ImageKernelError) -> Data? {
        let coder = JPEGCoder()
        let options = DecodeOptions(pixelLimit: limits.maxSourcePixels, firstFrameOnly: true, shrinkOnLoad: resize.shrinkOnLoad)
        let encodeOptions = EncodeOptions(quality: Double(quality) / 100, progressive: progressive, metadata: limits.metadataPolicy)
        // Alone (no thread limit in this scope), the resize and encode run beside the decode;
        // metadata to keep comes with the decoded planes, so that render keeps to one thread.
        let pipeline = !convertsColor && (TransformThreads.limit.map { $0 > 1 } ?? true) && limits.metadataPolicy == .none
            ? PipelinedPlanarRender(resize: resize, options: encodeOptions, limits: limits, afterEncode: afterEncode) : nil
        guard let planes = try coder.decodeYCbCr(data, options: options, observer: pipeline) else { return nil }
        if let done = pipeline?.result { return try done.get() }
        var resized = try resize.transform(planes, subsampling: .s420)
        if convertsColor {
            guard let converted = try ColorPolicy.convertPlanes(resized) else { return nil }
            resized = converted
        }
        try limits.checkOutput(width: resized.width, height: resized.height)
        return try coder.encode(resized, options: encodeOptions)
    }
}
