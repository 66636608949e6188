import Foundation
import ImageKernel
import ImageKernelConformance
import Testing

/// The kernel's own plugins pass the suites third parties run.
@Suite("Kernel plugins pass the conformance suites")
struct KernelConformanceTests {
    @Test func memoryCache() async throws {
        try await CacheConformance(makeCache: { MemoryCache() }, tiers: .memoryOnly).run()
    }

    @Test func tieredCacheOverAnotherCache() async throws {
        try await CacheConformance(makeCache: { TieredCache(backing: MemoryCache()) }, tiers: .memoryAndDisk).run()
    }

    @Test func defaultAndClosureCacheKeyFilters() async throws {
        try await CacheKeyFilterConformance(filter: AbsoluteURLCacheKeyFilter()).run()
        try await CacheKeyFilterConformance(filter: ClosureCacheKeyFilter { $0.absoluteString + "#v2" }).run()
    }

    @Test func transformerChain() async throws {
        let identity = ClosureTransformer(key: "identity") { $0 }
        let gray = ClosureTransformer(key: "to-rgba8") { $0.convertedToRGBA8() }
        try await TransformerConformance(transformer: TransformerChain([identity, gray])).run()
    }
}
