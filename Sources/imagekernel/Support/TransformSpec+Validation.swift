import ArgumentParser
import Foundation
import ImageKernel
import Transformers

extension TransformSpec {
    /// Parses a `--transform` argument; a bad spec is a usage error naming the step.
    /// `watermark` is the `--watermark` image (``placeholderWatermark`` while validating).
    static func validated(_ text: String, threadLimit: Int = 0, watermark: Image? = nil) throws -> TransformSpec {
        do {
            return try TransformSpec(parsing: text, threadLimit: threadLimit, watermark: watermark)
        } catch {
            throw ValidationError("--transform '\(text)': \(error.description)")
        }
    }

    /// Stands for the `--watermark` image while arguments are validated (before anything is
    /// decoded): the parser only needs to know there is one.
    static let placeholderWatermark = try? Image(width: 1, height: 1, pixelFormat: .rgba8, pixels: [0, 0, 0, 0])

    /// Decodes the `--watermark` file once, upright, with the digest of its bytes; nil without one.
    static func watermark(at path: String?, coders: CoderRegistry) throws -> Watermark? {
        guard let path else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("--watermark '\(path)': \(error.localizedDescription)")
        }
        do {
            let image = try OrientTransformer().transform(try coders.decode(data, options: DecodeOptions(firstFrameOnly: true)))
            return Watermark(image: image, digest: Watermark.digest(of: data))
        } catch {
            throw ValidationError("--watermark '\(path)': \(error.description)")
        }
    }
}
