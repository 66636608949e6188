import Foundation
import ImageKernel
import ImageKernelConformance
import Testing

@Suite("LoaderConformance")
struct LoaderConformanceTests {
    static func suite(_ loader: any ImageLoader, slow: Bool = true) -> LoaderConformance {
        LoaderConformance(
            loader: loader, url: MemoryFiles.url, expectedData: MemoryFiles.image, unreachableURL: MemoryFiles.unreachable,
            unreachableIsTransient: false, slowURL: slow ? MemoryFiles.slow : nil, timeout: .seconds(5))
    }

    @Test func correctLoaderPassesEveryCase() async throws {
        try await Self.suite(MemoryLoader(files: MemoryFiles.files)).run()
    }

    @Test func correctLoaderPassesWithoutASlowSource() async throws {
        try await Self.suite(MemoryLoader(files: MemoryFiles.files), slow: false).run()
    }

    @Test(arguments: LoaderConformance.Case.allCases)
    func everyCaseCatchesALoaderThatBreaksIt(_ testCase: LoaderConformance.Case) async {
        let failure = await #expect(throws: ConformanceFailure.self) {
            try await Self.suite(BrokenLoader(breaking: testCase)).run(case: testCase)
        }
        #expect(failure?.suite == LoaderConformance.suiteName)
        #expect(failure?.caseName == testCase.rawValue)
        #expect(failure?.input.contains("URL") == true)
    }

    @Test func wrongTransienceIsReported() async {
        let suite = LoaderConformance(
            loader: MemoryLoader(files: MemoryFiles.files), url: MemoryFiles.url, expectedData: MemoryFiles.image,
            unreachableURL: MemoryFiles.unreachable, unreachableIsTransient: true)
        let failure = await #expect(throws: ConformanceFailure.self) { try await suite.run(case: .unreachableSourceThrows) }
        #expect(failure?.message.contains("isTransient") == true)
    }

    @Test func wrongExpectedBytesAreReported() async {
        let suite = LoaderConformance(
            loader: MemoryLoader(files: MemoryFiles.files), url: MemoryFiles.url, expectedData: Data("other".utf8),
            unreachableURL: MemoryFiles.unreachable)
        await #expect(throws: ConformanceFailure.self) { try await suite.run(case: .loadsExpectedBytes) }
    }
}
