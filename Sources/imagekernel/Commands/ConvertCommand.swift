import ArgumentParser
import Foundation
import ImageKernel
import Transformers

/// `imagekernel convert INPUT OUTPUT`: decode, optionally thumbnail and transform, encode by the
/// output extension.
/// Animations stay animated where the output format animates (GIF and WebP, either way); other
/// formats get frame 0. An SVG input with a transform that starts with a resize is drawn at the
/// size the resize needs (``VectorShrinkCoder``).
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode INPUT and encode it as OUTPUT's format (by extension)."
    )

    @Argument(help: "Input path or URL.") var input: String
    @Argument(help: "Output path; its extension picks the format (png, jpg, heic, avif, …).") var output: String
    @Option(help: "Lossy quality, 1–100.") var quality: Int = 90
    @Option(help: "Decode to a thumbnail that fits WxH.") var thumbnail: String?
    @Option(help: "A transform spec, e.g. orient/resize:fill:300:200/round:12.") var transform: String?
    @Option(help: "The image the spec's watermark steps composite (decoded once).") var watermark: String?
    @Flag(help: "Progressive JPEG / interlaced PNG.") var progressive = false
    @Flag(help: "Lossless WebP.") var lossless = false
    @Flag(help: "Convert the pixels to sRGB through their ICC profile or CICP description (lcms2) and write no profile.")
    var toSrgb = false
    @Flag(help: "Write no EXIF, XMP or IPTC (by default the output keeps all the source had, orientation reset when applied).")
    var strip = false

    func validate() throws {
        guard (1...100).contains(quality) else { throw ValidationError("--quality takes 1–100") }
        if let thumbnail, PixelSize(parsing: thumbnail) == nil { throw ValidationError("--thumbnail takes WxH") }
        if let transform { _ = try TransformSpec.validated(transform, watermark: watermark == nil ? nil : TransformSpec.placeholderWatermark) }
        guard ImageFormat(fileExtension: (output as NSString).pathExtension) != nil else {
            throw ValidationError("cannot tell the output format from '\(output)'")
        }
    }

    func run() async throws {
        let format = ImageFormat(fileExtension: (output as NSString).pathExtension)!
        let manager = try Plugins.manager(conversion: toSrgb ? .sRGB : nil)
        var context = ImageContext()
        context.thumbnailPixelSize = thumbnail.flatMap(PixelSize.init(parsing:))
        let mark = try TransformSpec.watermark(at: watermark, coders: manager.coders)
        let spec = try transform.map { try TransformSpec.validated($0, watermark: mark?.image) }
        context.transformer = spec?.keyed(by: mark)
        context.storeCacheType = ImageCacheType.none
        do {
            let result = try await manager.image(for: Sources.url(for: input), options: .fromLoaderOnly, context: context)
            guard let image = result.image else { throw ImageKernelError(stage: .decode, code: .noCoder, message: "nothing decoded") }
            var options = EncodeOptions(quality: Double(quality) / 100, progressive: progressive, lossless: lossless, metadata: strip ? .none : .all)
            if let background = spec?.backgroundColor {
                options.backgroundColor = RGBColor(red: background.red, green: background.green, blue: background.blue)
            }
            let data = try manager.coders.encode(image, as: format, options: options)
            try data.write(to: URL(fileURLWithPath: output), options: .atomic)
            print(["input", "output", "format", "width", "height", "bytes"].joined(separator: "\t"))
            print([Sources.field(input), Sources.field(output), format.rawValue, "\(image.width)", "\(image.height)", "\(data.count)"].joined(separator: "\t"))
        } catch let error as ImageKernelError {
            printError(Sources.errorLine(input, error))
            throw ExitCode(1)
        }
    }
}
