import Foundation
import ImageKernel
import ImageKernelConformance
import Testing

@Suite("CacheConformance")
struct CacheConformanceTests {
    @Test func memoryCachePassesEveryCase() async throws {
        try await CacheConformance(makeCache: { MemoryCache() }, tiers: .memoryOnly).run()
    }

    @Test func tieredCacheOverMemoryPassesEveryCase() async throws {
        try await CacheConformance(makeCache: { TieredCache(backing: MemoryCache()) }, tiers: .memoryAndDisk).run()
    }

    @Test func dataOnlyCachePassesAsADiskTier() async throws {
        try await CacheConformance(makeCache: { DataOnlyCache() }, tiers: .diskOnly).run()
    }

    @Test func tieredCacheOverADataOnlyTierPassesEveryCase() async throws {
        try await CacheConformance(makeCache: { TieredCache(backing: DataOnlyCache()) }, tiers: .memoryAndDisk).run()
    }

    @Test(arguments: CacheConformance.Case.allCases)
    func everyCaseCatchesACacheThatBreaksIt(_ testCase: CacheConformance.Case) async {
        let suite = CacheConformance(makeCache: { BrokenCache(breaking: testCase) }, tiers: .memoryAndDisk, timeout: .seconds(30))
        let failure = await #expect(throws: ConformanceFailure.self) { try await suite.run(case: testCase) }
        #expect(failure?.suite == CacheConformance.suiteName)
        #expect(failure?.caseName == testCase.rawValue)
        #expect(failure?.input.isEmpty == false)
    }

    @Test func cacheDeclaringATierItLacksFails() async {
        let suite = CacheConformance(makeCache: { MemoryCache() }, tiers: .memoryAndDisk)
        let failures = await suite.failures([.cacheTypesKeepTiersApart, .containsReportsTier])
        #expect(failures.map(\.caseName) == ["cacheTypesKeepTiersApart", "containsReportsTier"])
    }

    @Test func factoryThatThrowsFailsEveryCase() async {
        struct NoCache: Error {}
        let suite = CacheConformance(makeCache: { throw NoCache() }, tiers: .memoryOnly)
        let failures = await suite.failures()
        #expect(failures.count == CacheConformance.Case.allCases.count)
        #expect(failures.allSatisfy { $0.input == "makeCache()" })
    }
}
