import CoderPNG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("One coder shared by many tasks")
struct ConcurrencyTests {
    @Test func concurrentDecodesAndEncodesAgreeWithSerialOnes() async throws {
        let coder = PNGCoder()
        let paths = ReferenceTable.exactPNGs.prefix(48).map(\.path)
        let inputs = try paths.map { try TestData.data($0) }
        let expected = try inputs.map { try coder.decode($0, options: DecodeOptions()) }
        let results = try await withThrowingTaskGroup(of: (Int, Image, Image).self) { group in
            for (index, data) in inputs.enumerated() {
                group.addTask {
                    let image = try coder.decode(data, options: DecodeOptions())
                    let again = try coder.decode(coder.encode(image, as: .png, options: EncodeOptions()), options: DecodeOptions())
                    return (index, image, again)
                }
            }
            var results: [(Int, Image, Image)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(results.count == inputs.count)
        for (index, image, again) in results {
            #expect(image == expected[index])
            #expect(again.pixels == image.pixels)
        }
    }
}
