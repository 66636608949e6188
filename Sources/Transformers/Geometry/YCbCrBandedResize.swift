import ImageKernel

/// A ``ResizeTransformer`` run on Y′CbCr planes while they are still being filled (a decode that
/// reports its rows): each plane is filtered band by band as its source rows arrive, and its
/// output rows can be read (by an encoder) as soon as they are done. The bytes are those of
/// ``ResizeTransformer/transform(_:subsampling:)`` on the finished planes.
///
/// One thread drives it (``advance(sourceLumaRows:)``); the output planes it hands out are valid
/// while it lives.
public final class YCbCrBandedResize: @unchecked Sendable {
    private let planes: [BandedPlaneFilter]
    private let source: YCbCrPlanePointers
    private let outFactor: YCbCrImage.Subsampling
    /// The output planes (at ``YCbCrPlanePointers/subsampling``), written by ``advance(sourceLumaRows:)``.
    public let output: YCbCrPlanePointers

    /// A banded run of `resize` over `source`'s planes to the `subsampling` grid, or nil when the
    /// whole-plane path takes a route the banded one does not have (nothing to resample, a
    /// vertical-first or direct pass, a limit exceeded, a smart `fill`, which needs the whole
    /// image to choose its window): then resize the finished planes.
    public init?(_ resize: ResizeTransformer, source: YCbCrPlanePointers, subsampling: YCbCrImage.Subsampling) {
        guard source.planes.count == 3,
              let plan = try? resize.planeFilters(
                  width: source.width, height: source.height, planeSizes: source.planes.map { ($0.width, $0.height) },
                  subsampling: source.subsampling, to: subsampling, attention: { () throws(ImageKernelError) in throw YCbCrBandedResize.needsWholeImage })
        else { return nil }
        var planes: [BandedPlaneFilter] = []
        for (plane, filter) in zip(source.planes, plan.filters) {
            guard let banded = BandedPlaneFilter(filter, source: plane.base, bytesPerRow: plane.bytesPerRow) else { return nil }
            planes.append(banded)
        }
        self.planes = planes
        self.source = source
        outFactor = subsampling
        output = YCbCrPlanePointers(
            width: plan.width, height: plan.height, subsampling: subsampling,
            planes: planes.map { .init(base: UnsafePointer($0.output), bytesPerRow: $0.outWidth, width: $0.outWidth, height: $0.outHeight) })
    }

    /// Output luma rows done, counting only those whose chroma rows are done too.
    public var outputLumaRowsDone: Int {
        let chroma = min(planes[1].outputsDone, planes[2].outputsDone)
        let covered = chroma >= planes[1].outHeight ? output.height : chroma * outFactor.vertical
        return min(planes[0].outputsDone, covered)
    }

    /// Filters what source luma rows `0 ..< rows` (and their chroma rows) allow.
    public func advance(sourceLumaRows rows: Int) {
        let chroma = source.chromaRows(forLumaRows: rows)
        planes[0].advance(available: rows)
        planes[1].advance(available: chroma)
        planes[2].advance(available: chroma)
    }
}

extension YCbCrBandedResize {
    /// Why a banded run refuses a smart `fill`: its window depends on rows not decoded yet.
    static let needsWholeImage = ImageKernelError(
        stage: .transform, code: .invalidArgument, message: "a smart crop needs the whole image before it can place its window")
}
