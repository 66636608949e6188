// swift-tools-version:6.0
import PackageDescription

// Swift 6 language mode (below) turns on complete strict concurrency checking for every target.
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "ImageKernel",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ImageKernel", targets: ["ImageKernel"]),
        .library(name: "CacheDisk", targets: ["CacheDisk"]),
        .library(name: "LoaderFile", targets: ["LoaderFile"]),
        .library(name: "CoderJPEG", targets: ["CoderJPEG"]),
        .library(name: "CoderPNG", targets: ["CoderPNG"]),
        .library(name: "LoaderHTTP", targets: ["LoaderHTTP"]),
        .library(name: "CoderHEIF", targets: ["CoderHEIF"]),
        .library(name: "CoderWebP", targets: ["CoderWebP"]),
        .library(name: "CoderGIF", targets: ["CoderGIF"]),
        .library(name: "CacheRedis", targets: ["CacheRedis"]),
        .library(name: "ImageKernelConformance", targets: ["ImageKernelConformance"]),
        .library(name: "Transformers", targets: ["Transformers"]),
        .executable(name: "imagekernel", targets: ["imagekernel"]),
        // Test support for the Examples package's tests: real servers (nginx, redis-server, a
        // scriptable HTTP server) on 127.0.0.1 and the shared test corpora. Not for applications.
        .library(name: "HTTPTestServer", targets: ["HTTPTestServer"]),
        .library(name: "TestData", targets: ["TestData"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "ImageKernel",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "CacheDisk",
            dependencies: ["ImageKernel", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // Child process for CacheDiskTests (crash and multi-process tests); not a product.
        .executableTarget(name: "cachedisk-stress", dependencies: ["CacheDisk", "ImageKernel"], swiftSettings: strict),
        .target(name: "LoaderFile", dependencies: ["ImageKernel"], swiftSettings: strict),
        // hiredis' blocking API behind typed functions (no variadics, no struct timeval, SIGPIPE kept off).
        .target(name: "CHiredis", linkerSettings: [.linkedLibrary("hiredis")]),
        .target(
            name: "CacheRedis",
            dependencies: [
                "ImageKernel", "CHiredis", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CoderJPEG", dependencies: ["ImageKernel", "CJPEG"], swiftSettings: strict),
        .target(name: "CPNG", linkerSettings: [.linkedLibrary("png")]),
        .target(name: "CoderPNG", dependencies: ["ImageKernel", "CPNG"], swiftSettings: strict),
        // libheif reports errors by value (no longjmp): Swift calls it directly through a module map.
        .systemLibrary(name: "CLibHEIF", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .target(name: "CoderHEIF", dependencies: ["ImageKernel", "CLibHEIF"], swiftSettings: strict),
        .target(name: "CWebP", linkerSettings: [.linkedLibrary("webp"), .linkedLibrary("webpdemux"), .linkedLibrary("webpmux")]),
        .target(name: "CoderWebP", dependencies: ["ImageKernel", "CWebP"], swiftSettings: strict),
        .target(name: "CGIF", linkerSettings: [.linkedLibrary("gif")]),
        .target(name: "CoderGIF", dependencies: ["ImageKernel", "CGIF"], swiftSettings: strict),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        .target(name: "LoaderHTTP", dependencies: ["ImageKernel", "CCurl"], swiftSettings: strict),
        // Test-only support: locating ../shared/testdata.
        .target(name: "TestData", swiftSettings: strict),
        // Test-only support: REFERENCE-ANIM.tsv and its hashes, for the WebP and GIF tests.
        .target(
            name: "AnimationReference",
            dependencies: ["TestData", "ImageKernel", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(name: "HTTPTestServer", dependencies: ["ImageKernel"], swiftSettings: strict),
        // The fault soak (scripts/soak.sh): loads through a misbehaving server; not a product.
        .executableTarget(
            name: "imagekernel-soak",
            dependencies: ["ImageKernel", "ImageKernelConformance", "LoaderHTTP", "CacheDisk", "CoderPNG", "CoderJPEG", "HTTPTestServer", "TestData"],
            swiftSettings: strict
        ),
        .target(name: "ImageKernelConformance", dependencies: ["ImageKernel"], swiftSettings: strict),
        // The 8-bit convolution kernels (AVX2 chosen at run time); internal to Transformers.
        .target(name: "CTransformKernels"),
        .target(name: "Transformers", dependencies: ["ImageKernel", "CTransformKernels"], swiftSettings: strict),
        .executableTarget(
            name: "imagekernel",
            dependencies: [
                "ImageKernel", "LoaderFile", "LoaderHTTP", "CoderPNG", "CoderJPEG", "CoderHEIF", "CoderWebP", "CoderGIF", "CacheDisk", "CacheRedis",
                "Transformers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CacheDiskTests",
            // The coders encode and decode image-only entries (DiskCache.Configuration.imageEncoder).
            dependencies: ["TestData", "CacheDisk", "cachedisk-stress", "ImageKernel", "ImageKernelConformance", "CoderPNG", "CoderJPEG"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CacheRedisTests",
            dependencies: ["TestData", "CacheRedis", "CacheDisk", "ImageKernel", "ImageKernelConformance", "HTTPTestServer"],
            swiftSettings: strict
        ),
        .testTarget(name: "ImageKernelTests", dependencies: ["TestData", "ImageKernel", "ImageKernelConformance"], swiftSettings: strict),
        .testTarget(
            name: "CoderJPEGTests",
            dependencies: ["TestData", "CoderJPEG", "ImageKernelConformance", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderPNGTests",
            dependencies: ["TestData", "CoderPNG", "ImageKernelConformance", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderHEIFTests",
            dependencies: [
                "TestData", "CoderHEIF", "ImageKernelConformance", "LoaderFile", "CoderPNG", "CoderJPEG",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderWebPTests",
            dependencies: ["TestData", "AnimationReference", "CoderWebP", "ImageKernelConformance"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderGIFTests",
            dependencies: ["TestData", "AnimationReference", "CoderGIF", "ImageKernelConformance"],
            exclude: ["Reference"],
            swiftSettings: strict
        ),
        .testTarget(name: "LoaderFileTests", dependencies: ["LoaderFile", "ImageKernelConformance"], swiftSettings: strict),
        .testTarget(
            name: "LoaderHTTPTests",
            dependencies: ["TestData", "LoaderHTTP", "HTTPTestServer", "ImageKernelConformance"],
            swiftSettings: strict
        ),
        .testTarget(name: "ImageKernelConformanceTests", dependencies: ["ImageKernel", "ImageKernelConformance"], swiftSettings: strict),
        .testTarget(
            name: "TransformersTests",
            dependencies: [
                // AnimationReference: sha256Hex, the hash REFERENCE.tsv uses.
                "TestData", "AnimationReference", "Transformers", "ImageKernel", "ImageKernelConformance", "CoderJPEG",
                // CTransformKernels: to compare its SIMD kernels with the portable ones.
                "CTransformKernels",
            ],
            exclude: ["Reference"],
            swiftSettings: strict
        ),
        .testTarget(name: "imagekernelTests", dependencies: ["TestData", "imagekernel", "HTTPTestServer", "ImageKernel"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
