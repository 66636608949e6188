// swift-tools-version:6.0
// image-proxy: the imgproxy-style image service built on ImageKernel, a product of its own.
// Its own package beside the library, so Hummingbird and the service's other dependencies never
// enter the library's dependency graph. ImageProxyCore (request parsing, signing, rendering,
// without the HTTP server) is a library product others can embed; the Fuzz package uses it too.
//   swift run -c release --package-path ImageProxy image-proxy --port 8080 --allow-origin https://…
import PackageDescription

let package = Package(
    name: "ImageProxy",
    platforms: [.macOS(.v15)],
    products: [
        // The proxy's request parsing, signing and rendering, without the HTTP server.
        .library(name: "ImageProxyCore", targets: ["ImageProxyCore"]),
        .executable(name: "image-proxy", targets: ["image-proxy"]),
    ],
    dependencies: [
        .package(name: "ImageKernel", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Named for the modules image-proxy imports itself (the event-loop answers of
        // HotPath/): Hummingbird brings both.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    ],
    targets: [
        // openat2(2) through syscall(2), which Swift cannot call (variadic); see LocalFileOpener.
        .target(name: "CImageProxy"),
        .target(name: "ImageProxyCore", dependencies: [
            "CImageProxy",
            .product(name: "ImageKernel", package: "ImageKernel"), .product(name: "LoaderHTTP", package: "ImageKernel"),
            .product(name: "LoaderFile", package: "ImageKernel"), .product(name: "LoaderS3", package: "ImageKernel"),
            .product(name: "CacheDisk", package: "ImageKernel"), .product(name: "CacheRedis", package: "ImageKernel"),
            .product(name: "CoderPNG", package: "ImageKernel"), .product(name: "CoderJPEG", package: "ImageKernel"),
            .product(name: "CoderHEIF", package: "ImageKernel"), .product(name: "CoderWebP", package: "ImageKernel"),
            .product(name: "CoderGIF", package: "ImageKernel"), .product(name: "Transformers", package: "ImageKernel"),
            .product(name: "ColorLCMS", package: "ImageKernel"), .product(name: "CoderTIFF", package: "ImageKernel"),
            .product(name: "CoderBMP", package: "ImageKernel"), .product(name: "CoderJXL", package: "ImageKernel"),
            .product(name: "CoderSVG", package: "ImageKernel"),
            .product(name: "Digests", package: "ImageKernel"), .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Configuration", package: "swift-configuration"),
        ]),
        .executableTarget(name: "image-proxy", dependencies: [
            "ImageProxyCore",
            .product(name: "ImageKernel", package: "ImageKernel"),
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ],
        // gperftools' tcmalloc as the allocator (Debian's libtcmalloc-minimal4, by its soname:
        // the unversioned name comes with a -dev package that pulls libunwind-dev): see
        // MallocTuning.swift for what it changes.
        linkerSettings: [.linkedLibrary(":libtcmalloc_minimal.so.4", .when(platforms: [.linux]))]),
        .testTarget(name: "ImageProxyTests", dependencies: [
            "ImageProxyCore", .product(name: "Digests", package: "ImageKernel"),
            .product(name: "ImageKernelTestSupport", package: "ImageKernel"),
            .product(name: "CoderJPEG", package: "ImageKernel"), .product(name: "CoderPNG", package: "ImageKernel"),
            .product(name: "CoderGIF", package: "ImageKernel"), .product(name: "CoderWebP", package: "ImageKernel"),
            .product(name: "CoderHEIF", package: "ImageKernel"), .product(name: "Transformers", package: "ImageKernel"),
            .product(name: "CoderTIFF", package: "ImageKernel"), .product(name: "CoderBMP", package: "ImageKernel"),
            .product(name: "CoderJXL", package: "ImageKernel"), .product(name: "CoderSVG", package: "ImageKernel"),
            .product(name: "CacheRedis", package: "ImageKernel"), .product(name: "LoaderHTTP", package: "ImageKernel"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
