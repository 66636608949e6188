// swift-tools-version:6.0
// Small runnable programs that show ImageKernel at work. Their own package, so the main test
// run never builds them:  swift run --package-path Examples thumbnailer Examples/images/*
import PackageDescription

let package = Package(
    name: "ImageKernelExamples",
    platforms: [.macOS(.v15)],
    products: [
        // The proxy's request parsing, signing and rendering, without the HTTP server: its tests and
        // the fuzz package (../Fuzz) use it directly.
        .library(name: "ImageProxyCore", targets: ["ImageProxyCore"]),
    ],
    dependencies: [
        .package(name: "ImageKernel", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(name: "thumbnailer", dependencies: [
            .product(name: "ImageKernel", package: "ImageKernel"), .product(name: "LoaderFile", package: "ImageKernel"),
            .product(name: "CoderPNG", package: "ImageKernel"), .product(name: "CoderJPEG", package: "ImageKernel"),
            .product(name: "Transformers", package: "ImageKernel"),
        ]),
        .executableTarget(name: "chapter-prefetcher", dependencies: [
            .product(name: "ImageKernel", package: "ImageKernel"), .product(name: "LoaderFile", package: "ImageKernel"),
            .product(name: "CoderPNG", package: "ImageKernel"), .product(name: "CoderJPEG", package: "ImageKernel"),
        ]),
        .executableTarget(name: "custom-coder", dependencies: [
            .product(name: "ImageKernel", package: "ImageKernel"), .product(name: "LoaderFile", package: "ImageKernel"),
            .product(name: "ImageKernelConformance", package: "ImageKernel"),
        ]),
        .target(name: "ImageProxyCore", dependencies: [
            .product(name: "ImageKernel", package: "ImageKernel"), .product(name: "LoaderHTTP", package: "ImageKernel"),
            .product(name: "LoaderFile", package: "ImageKernel"),
            .product(name: "CacheDisk", package: "ImageKernel"), .product(name: "CacheRedis", package: "ImageKernel"),
            .product(name: "CoderPNG", package: "ImageKernel"), .product(name: "CoderJPEG", package: "ImageKernel"),
            .product(name: "CoderHEIF", package: "ImageKernel"), .product(name: "CoderWebP", package: "ImageKernel"),
            .product(name: "CoderGIF", package: "ImageKernel"), .product(name: "Transformers", package: "ImageKernel"),
            .product(name: "ColorLCMS", package: "ImageKernel"), .product(name: "CoderTIFF", package: "ImageKernel"),
            .product(name: "CoderBMP", package: "ImageKernel"), .product(name: "CoderJXL", package: "ImageKernel"),
            .product(name: "CoderSVG", package: "ImageKernel"),
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        .executableTarget(name: "image-proxy", dependencies: [
            "ImageProxyCore",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ], exclude: ["README.md"],
        // gperftools' tcmalloc as the allocator (Debian's libtcmalloc-minimal4, by its soname:
        // the unversioned name comes with a -dev package that pulls libunwind-dev): see
        // MallocTuning.swift for what it changes.
        linkerSettings: [.linkedLibrary(":libtcmalloc_minimal.so.4", .when(platforms: [.linux]))]),
        .testTarget(name: "ImageProxyTests", dependencies: [
            "ImageProxyCore", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "ImageKernelTestSupport", package: "ImageKernel"),
            .product(name: "CoderJPEG", package: "ImageKernel"), .product(name: "CoderPNG", package: "ImageKernel"),
            .product(name: "CoderGIF", package: "ImageKernel"), .product(name: "CoderWebP", package: "ImageKernel"),
            .product(name: "CoderHEIF", package: "ImageKernel"), .product(name: "Transformers", package: "ImageKernel"),
            .product(name: "CoderTIFF", package: "ImageKernel"), .product(name: "CoderBMP", package: "ImageKernel"),
            .product(name: "CoderJXL", package: "ImageKernel"), .product(name: "CoderSVG", package: "ImageKernel"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
