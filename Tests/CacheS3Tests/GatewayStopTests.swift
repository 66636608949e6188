import CacheS3
import Foundation
import ImageKernel
import ImageKernelTestSupport
import LoaderS3
import Testing

/// The gateway stopped in the middle of a run of loads through a manager with the bucket as its
/// cache: every load still succeeds (from the origin), none fails. Part of the serialized
/// ``CacheS3Tests`` suite (the target's only one), so no other test runs while the gateway is down.
extension CacheS3Tests {
    /// A loader that serves bytes for any `mem://` URL, standing in for the origin.
    struct OriginLoader: ImageLoader {
        var name: String { "Origin" }
        func canLoad(_ url: URL) -> Bool { url.scheme == "mem" }
        func load(_ request: ImageRequest, options: LoaderOptions, context: ImageContext, progress: @escaping @Sendable (LoadProgress) -> Void) async throws(ImageKernelError) -> LoadResult {
            LoadResult(data: Data(request.url.absoluteString.utf8), url: request.url, statusCode: 200)
        }
    }

    @Test func stoppingTheGatewayMidRunFailsNoLoad() async throws {
        let server = try CephRGWServer.shared()
        let bucket = try await server.makeBucket("stop")
        let cache = CacheS3Tests.cache(server, bucket: bucket) { $0.timeout = .milliseconds(300) }
        let manager = ImageManager(configuration: .init(cache: cache, loaders: LoaderRegistry([OriginLoader()])))
        var failures = 0
        var loads = 0
        defer { try? server.startGateway() }
        for round in 0..<3 {
            if round == 1 { server.stopGateway() }
            if round == 2 { try server.startGateway() }
            for index in 0..<20 {
                loads += 1
                do {
                    _ = try await manager.image(for: URL(string: "mem://image/\(index)"), options: .avoidDecode)
                } catch {
                    failures += 1
                    Issue.record("load \(index) in round \(round) failed: \(error)")
                }
            }
        }
        #expect(loads == 60)
        #expect(failures == 0)
        // After the restart the tier works again: round 0's entries are hits.
        #expect(try await cache.query(key: "mem://image/0", type: .all) != nil)
    }
}
