import Foundation
import ImageKernel
import Synchronization

/// A coder that counts its decodes and hands the work to the coder it wraps.
final class CountingCoder: ImageCoder {
    let base: any ImageCoder
    private let decodes = Atomic<Int>(0)
    var name: String { base.name }
    var decodeCount: Int { decodes.load(ordering: .relaxed) }

    init(_ base: any ImageCoder) { self.base = base }

    func canDecode(_ data: Data) -> Bool { base.canDecode(data) }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        decodes.add(1, ordering: .relaxed)
        return try base.decode(data, options: options)
    }
}

/// A loader that counts the loads the manager asks for and hands them to the loader it wraps.
final class CountingLoader: ImageLoader {
    let base: any ImageLoader
    private let loads = Atomic<Int>(0)
    var name: String { base.name }
    var loadCount: Int { loads.load(ordering: .relaxed) }

    init(_ base: any ImageLoader) { self.base = base }

    func canLoad(_ url: URL) -> Bool { base.canLoad(url) }

    func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext,
        progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult {
        loads.add(1, ordering: .relaxed)
        return try await base.load(request, options: options, context: context, progress: progress)
    }
}
