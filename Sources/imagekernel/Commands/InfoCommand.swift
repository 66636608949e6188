import ArgumentParser
import Digests
import Foundation
import ImageKernel

/// `imagekernel info SOURCE...`: `source format width height pixel_format orientation sha256 frames loop`.
///
/// `sha256` is frame 0's; `frames` counts the frames (1 for stills) and `loop` is the animation's
/// loop count (0 = forever) or `-` when the file gives none. The two columns come last so that
/// readers of the first seven keep working.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Decode each source and print its format, size, pixel format, orientation and pixel hash.",
        discussion: "sha256 is the SHA-256 of (frame 0's) pixels as 8-bit RGBA, rows top to bottom, no padding, orientation not applied. frames is the frame count; loop the animation's loop count (0 = forever, - = none given)."
    )

    @Argument(help: "File paths or URLs.")
    var sources: [String]

    static let header = ["source", "format", "width", "height", "pixel_format", "orientation", "sha256", "frames", "loop"]

    /// Inspecting never writes a cache.
    static let noStore: ImageContext = {
        var context = ImageContext()
        context.storeCacheType = ImageCacheType.none
        return context
    }()

    func run() async throws {
        let manager = try Plugins.manager(colorManaged: false)
        print(Self.header.joined(separator: "\t"))
        var failed = false
        for source in sources {
            do {
                let result = try await manager.image(for: Sources.url(for: source), options: .fromLoaderOnly, context: Self.noStore)
                guard let image = result.image else { continue }
                let format = result.data.map { ImageFormat.sniff($0) } ?? image.sourceFormat
                let digest = SHA256.hash(image.rgba8Pixels()).hex
                print([Sources.field(source), format.rawValue, "\(image.width)", "\(image.height)",
                       image.pixelFormat.description, "\(image.orientation.rawValue)", digest,
                       "\(image.frameCount)", image.loopCount.map(String.init) ?? "-"].joined(separator: "\t"))
            } catch {
                failed = true
                print(Sources.errorLine(source, error))
            }
        }
        if failed { throw ExitCode(1) }
    }
}
