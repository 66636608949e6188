import Foundation
import ImageKernel
import ImageKernelTestSupport
import LoaderS3
import Testing

/// A 50 MB object streamed from the gateway with progress, measured by the process's peak
/// resident-set growth. Runs only in a process of its own (`swift test --filter
/// S3PeakMemoryTests`), as the other peak-memory suites: tests beside it inflate the figure.
@Suite(
    .serialized, .enabled(if: CephRGWServer.isAvailable),
    .enabled(if: MemoryProbe.filterNames("S3PeakMemoryTests"), "runs alone only: swift test --filter S3PeakMemoryTests"),
    .disabled(if: MemoryProbe.underSanitizer, "resident-set figures are meaningless under a sanitizer"))
struct S3PeakMemoryTests {
    @Test func fiftyMegabyteObjectStreamsWithProgressInFlatMemory() async throws {
        let server = try RGW.server()
        let bucket = try await server.makeBucket("large")
        let size = 50 << 20
        do {
            let data = RGW.bytes(size, seed: 3)
            try await server.put(bucket: bucket, key: "large.bin", data: data)
        }
        let loader = try RGW.loader(server)
        let url = URL(string: "s3://\(bucket)/large.bin")!
        let reports = Locked<[LoadProgress]>([])
        let (result, peak) = try await MemoryProbe.peakGrowth {
            try await loader.load(ImageRequest(url: url), options: [], context: ImageContext()) { progress in
                reports.withLock { $0.append(LoadProgress(received: progress.received, expected: progress.expected)) }
            }
        }
        #expect(result.data.count == size)
        #expect(result.data == RGW.bytes(size, seed: 3))
        let seen = reports.withLock { $0 }
        // Streamed: many reports, never decreasing, the total known from the start.
        #expect(seen.count > 20)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.received <= $1.received })
        #expect(seen.allSatisfy { $0.expected == Int64(size) })
        #expect(seen.last?.received == Int64(size))
        print("S3 50 MB GET: peak RSS growth \(peak >> 20) MiB for \(size >> 20) MiB, \(seen.count) progress reports")
        // One buffer of the object's size and nothing proportional beside it (no copies, no doubling).
        #expect(peak < size + size / 2, "peak growth \(peak >> 20) MiB")
    }
}
