import ImageKernel
import Transformers

/// The `--watermark` image and a digest of its file's bytes.
struct Watermark: Sendable {
    let image: Image
    /// 16 hex digits of FNV-1a 64 over the file: enough to tell one watermark file from another.
    let digest: String

    static func digest(of bytes: some Sequence<UInt8>) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// A spec with `watermark` steps, keyed by the watermark file too. The spec's own key names a
/// watermark step's opacity, place and scale but not the watermark (see `WatermarkTransformer`),
/// and a cache directory outlives one `--watermark` file: without the digest, a spec run with a
/// second watermark would be served the first one's cached result.
struct WatermarkedSpec: ImageTransformer {
    let spec: TransformSpec
    let watermarkDigest: String

    var key: String { spec.key + "-watermark-" + watermarkDigest }

    func transform(_ image: Image) throws(ImageKernelError) -> Image { try spec.transform(image) }

    func transformAnimation(_ image: Image) throws(ImageKernelError) -> Image { try spec.transformAnimation(image) }

    var vectorRenderBox: ShrinkOnLoad? { spec.vectorRenderBox }
}

extension TransformSpec {
    /// The transformer a command hands the manager: the spec, keyed by the watermark's digest
    /// when a watermark is given and one of the spec's steps composites it.
    func keyed(by watermark: Watermark?) -> any ImageTransformer {
        guard let watermark, steps.contains(where: { $0 is WatermarkTransformer }) else { return self }
        return WatermarkedSpec(spec: self, watermarkDigest: watermark.digest)
    }
}
