import Foundation
import ImageKernel
import ImageKernelConformance
import Testing

@Suite("CacheKeyFilterConformance")
struct CacheKeyFilterConformanceTests {
    @Test func absoluteURLFilterPassesEveryCase() async throws {
        try await CacheKeyFilterConformance(filter: AbsoluteURLCacheKeyFilter()).run()
    }

    @Test func closureFilterPassesEveryCase() async throws {
        try await CacheKeyFilterConformance(filter: ClosureCacheKeyFilter { "key:" + $0.absoluteString }).run()
    }

    @Test(arguments: CacheKeyFilterConformance.Case.allCases)
    func everyCaseCatchesAFilterThatBreaksIt(_ testCase: CacheKeyFilterConformance.Case) async {
        let failure = await #expect(throws: ConformanceFailure.self) {
            try await CacheKeyFilterConformance(filter: BrokenKeyFilter(breaking: testCase)).run(case: testCase)
        }
        #expect(failure?.suite == CacheKeyFilterConformance.suiteName)
        #expect(failure?.caseName == testCase.rawValue)
        #expect(failure?.input.contains("URL") == true)
    }
}

@Suite("TransformerConformance")
struct TransformerConformanceTests {
    @Test func flipTransformerPassesEveryCase() async throws {
        try await TransformerConformance(transformer: FlipTransformer()).run()
    }

    @Test func identityClosureTransformerPassesEveryCase() async throws {
        try await TransformerConformance(transformer: ClosureTransformer(key: "identity") { $0 }).run()
    }

    @Test func chainOfTransformersPassesEveryCase() async throws {
        try await TransformerConformance(transformer: TransformerChain([FlipTransformer(), FlipTransformer()])).run()
    }

    @Test(arguments: TransformerConformance.Case.allCases)
    func everyCaseCatchesATransformerThatBreaksIt(_ testCase: TransformerConformance.Case) async {
        let failure = await #expect(throws: ConformanceFailure.self) {
            try await TransformerConformance(transformer: BrokenTransformer(breaking: testCase)).run(case: testCase)
        }
        #expect(failure?.suite == TransformerConformance.suiteName)
        #expect(failure?.caseName == testCase.rawValue)
        #expect(failure?.input.isEmpty == false)
    }
}
