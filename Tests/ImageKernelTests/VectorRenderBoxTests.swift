import Foundation
import ImageKernel
import Testing

/// The manager draws a vector source at its transformer's ``ImageTransformer/vectorRenderBox``:
/// the coder is asked for the box (as ``DecodeOptions/shrinkOnLoad``), larger than the document
/// too, while raster sources, thumbnails and the original kept in memory decode as before.
@Suite("ImageManager: vector sources drawn at the transform's box")
struct VectorRenderBoxTests {
    /// A 200×100 "SVG" (sniffed by its `<svg` element), drawn at the box it is asked for.
    static let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"/>"#.utf8)

    /// A transformer that starts by resizing into `box` and, like a resize that never enlarges,
    /// leaves an image that already fits alone.
    struct FitTransformer: ImageTransformer {
        let box: ShrinkOnLoad
        var key: String { "fit(\(box))" }
        var vectorRenderBox: ShrinkOnLoad? { box }
        func transform(_ image: Image) throws(ImageKernelError) -> Image { image }
    }

    private func setUp(_ coder: VectorStandInCoder) -> (ImageManager, MemoryCache) {
        let loader = MemoryLoader()
        loader.serve("icon", data: Self.svg)
        loader.serve("photo", data: RawCoder.data(width: 200, height: 100))
        let cache = MemoryCache()
        let manager = ImageManager(configuration: .init(
            cache: cache, loaders: LoaderRegistry([loader]), coders: CoderRegistry([RawCoder(), coder])))
        return (manager, cache)
    }

    private func context(_ transformer: (any ImageTransformer)?, thumbnail: PixelSize? = nil) -> ImageContext {
        var context = ImageContext()
        context.transformer = transformer
        context.thumbnailPixelSize = thumbnail
        return context
    }

    @Test func aVectorSourceIsDrawnAtTheTransformsBoxLargerThanItsOwnSize() async throws {
        let coder = VectorStandInCoder()
        let (manager, _) = setUp(coder)
        let box = ShrinkOnLoad(width: 800, height: 800, mode: .fit)
        let result = try await manager.image(for: memURL("icon"), context: context(FitTransformer(box: box)))
        #expect(coder.boxes.withLock { $0 } == [box])
        #expect(result.image?.width == 800 && result.image?.height == 400)
        // Through a chain, the first transformer's box.
        let chained = try await manager.image(
            for: memURL("icon"), options: .fromLoaderOnly,
            context: context(TransformerChain([FitTransformer(box: box), ClosureTransformer(key: "same") { $0 }])))
        #expect(chained.image?.width == 800)
    }

    @Test func rasterSourcesThumbnailsAndPlainLoadsGetNoBox() async throws {
        let coder = VectorStandInCoder()
        let (manager, _) = setUp(coder)
        let box = ShrinkOnLoad(width: 800, height: 800, mode: .fit)
        let photo = try await manager.image(for: memURL("photo"), context: context(FitTransformer(box: box)))
        #expect(photo.image?.width == 200, "a raster is never enlarged by the hint")
        let plain = try await manager.image(for: memURL("icon"))
        #expect(plain.image?.width == 200)
        let thumbnail = try await manager.image(
            for: memURL("icon"), context: context(FitTransformer(box: box), thumbnail: PixelSize(width: 50, height: 50)))
        #expect(thumbnail.image?.width == 50 && thumbnail.image?.height == 25)
        #expect(coder.boxes.withLock { $0 }.allSatisfy { $0 == nil })
    }

    @Test func theOriginalKeptInMemoryIsTheDocumentAtItsOwnSize() async throws {
        let coder = VectorStandInCoder()
        let (manager, cache) = setUp(coder)
        var ctx = context(FitTransformer(box: ShrinkOnLoad(width: 800, height: 800, mode: .fit)))
        ctx.originalStoreCacheType = .memory
        let result = try await manager.image(for: memURL("icon"), context: ctx)
        #expect(result.image?.width == 800)
        let original = try #require(cache.entry(forKey: memURL("icon").absoluteString)?.image)
        #expect(original.width == 200 && original.height == 100)
    }
}

/// Decodes ``VectorRenderBoxTests/svg`` as a 200×100 document drawn at the decode's thumbnail
/// size (never larger) or shrink-on-load box (larger too), recording each decode's box.
final class VectorStandInCoder: ImageCoder, Sendable {
    let name = "VectorStandInCoder"
    let boxes = Locked<[ShrinkOnLoad?]>([])

    func canDecode(_ data: Data) -> Bool { ImageFormat.sniff(data) == .svg }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        boxes.withLock { $0.append(options.shrinkOnLoad) }
        var size = PixelSize(width: 200, height: 100)
        if let thumbnail = options.thumbnailPixelSize {
            size = PixelSize.thumbnail(of: size, fitting: thumbnail)
        } else if let box = options.shrinkOnLoad {
            let sx = Double(box.width) / 200, sy = Double(box.height) / 100
            let scale = box.mode == .fit ? min(sx, sy) : max(sx, sy)
            size = PixelSize(width: Int((200 * scale).rounded()), height: Int((100 * scale).rounded()))
        }
        return RawCoder.makeImage(width: size.width, height: size.height, alpha: true)
    }
}
