import Foundation
import ImageKernel
import ImageKernelTestSupport
import LoaderS3

/// The process's RADOS Gateway and loaders pointed at it.
enum RGW {
    static func server() throws -> CephRGWServer { try CephRGWServer.shared() }

    /// A loader for the gateway with the user's keys (or `credentials`), path-style by default.
    static func loader(
        _ server: CephRGWServer, credentials: S3Credentials? = nil, addressing: S3Endpoint.Addressing = .path,
        environment: [String: String] = [:], configure: (inout S3Loader.Configuration) -> Void = { _ in }
    ) throws -> S3Loader {
        var configuration = S3Loader.Configuration(environment: environment)
        configuration.endpoint = addressing == .path ? server.endpoint : server.virtualHostEndpoint
        configuration.addressing = addressing
        configuration.credentials = StaticS3Credentials(credentials ?? server.credentials)
        configure(&configuration)
        return try S3Loader(configuration: configuration)
    }

    /// Deterministic bytes: a block of a prime length (so no power-of-two offset repeats) laid end to end.
    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        let block = Data((0..<min(count, 65_521)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 8) &+ Int(seed)) })
        var data = Data(capacity: count)
        while data.count < count { data.append(block.prefix(count - data.count)) }
        return data
    }
}

extension S3Loader {
    /// A load with nothing special.
    func load(_ url: URL, headers: [String: String] = [:], validators: CacheValidators? = nil) async throws -> LoadResult {
        try await load(ImageRequest(url: url, headers: headers, cachedValidators: validators), options: [], context: ImageContext()) { _ in }
    }
}
