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
        .library(name: "CoderBMP", targets: ["CoderBMP"]),
        .library(name: "CoderTIFF", targets: ["CoderTIFF"]),
        .library(name: "CoderJXL", targets: ["CoderJXL"]),
        .library(name: "CoderSVG", targets: ["CoderSVG"]),
        .library(name: "CacheRedis", targets: ["CacheRedis"]),
        .library(name: "ColorLCMS", targets: ["ColorLCMS"]),
        .library(name: "LoaderS3", targets: ["LoaderS3"]),
        .library(name: "CacheS3", targets: ["CacheS3"]),
        .library(name: "ImageKernelConformance", targets: ["ImageKernelConformance"]),
        .library(name: "Transformers", targets: ["Transformers"]),
        // SHA-256, HMAC-SHA256 and MD5 on the system's OpenSSL libcrypto (cache and object names,
        // SigV4, image-proxy signatures), so no build compiles a cryptography library of its own.
        .library(name: "Digests", targets: ["Digests"]),
        .executable(name: "imagekernel", targets: ["imagekernel"]),
        // For tests only, never for applications: real servers on 127.0.0.1 (a scriptable HTTP
        // origin, nginx, redis-server), the repository's test corpora and a peak-memory probe, for
        // plugin authors' tests (with ImageKernelConformance) and ImageKernel's own.
        .library(name: "ImageKernelTestSupport", targets: ["ImageKernelTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // OpenSSL 3's EVP digests and HMAC behind typed functions (no OpenSSL type reaches Swift).
        .target(name: "CDigest", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "Digests", dependencies: ["CDigest"], swiftSettings: strict),
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
            dependencies: ["ImageKernel", "Digests"],
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
                "ImageKernel", "CHiredis", "Digests",
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
        // BMP, ICO and CUR in Swift: no C library.
        .target(name: "CoderBMP", dependencies: ["ImageKernel"], swiftSettings: strict),
        // libtiff reports errors by value; the shim holds the memory I/O, the per-call message
        // handlers and the strip/tile loops.
        .target(name: "CTIFF", linkerSettings: [.linkedLibrary("tiff")]),
        .target(name: "CoderTIFF", dependencies: ["ImageKernel", "CTIFF"], swiftSettings: strict),
        // libjxl reports errors by status; the shim holds the bounded memory manager.
        .target(name: "CJXL", linkerSettings: [.linkedLibrary("jxl"), .linkedLibrary("jxl_threads")]),
        .target(name: "CoderJXL", dependencies: ["ImageKernel", "CJXL"], swiftSettings: strict),
        // librsvg 2.54 and cairo: pkg-config's flags come from the system-library target; the shim
        // holds every glib and cairo call (loading without a base URL, rendering, un-premultiplying).
        .systemLibrary(name: "CLibRSVG", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),
        .target(name: "CRSVG", dependencies: ["CLibRSVG"]),
        .target(name: "CoderSVG", dependencies: ["ImageKernel", "CRSVG"], swiftSettings: strict),
        // lcms2 behind typed functions: per-object contexts whose log handler keeps the message, pixel-type macros.
        .target(name: "CLCMS", linkerSettings: [.linkedLibrary("lcms2")]),
        .target(name: "ColorLCMS", dependencies: ["ImageKernel", "CLCMS"], swiftSettings: strict),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        .target(name: "LoaderHTTP", dependencies: ["ImageKernel", "CCurl"], swiftSettings: strict),
        // s3:// on LoaderHTTP's HTTPLoader; our own SigV4 signer (Digests) and credential chain.
        .target(
            name: "LoaderS3",
            dependencies: ["ImageKernel", "LoaderHTTP", "CCurl", "Digests"],
            swiftSettings: strict
        ),
        // An ImageCache on a bucket, through LoaderS3's signed client.
        .target(
            name: "CacheS3",
            dependencies: ["ImageKernel", "LoaderS3", "Digests"],
            swiftSettings: strict
        ),
        // Test-only support: REFERENCE-ANIM.tsv and its hashes, for the WebP and GIF tests.
        .target(
            name: "AnimationReference",
            dependencies: ["ImageKernelTestSupport", "ImageKernel", "Digests"],
            swiftSettings: strict
        ),
        // Test support (servers, corpora in Tests/Corpora, memory probe); see its product above.
        .target(name: "ImageKernelTestSupport", dependencies: ["ImageKernel", "LoaderS3"], swiftSettings: strict),
        // The fault soak (scripts/soak.sh): loads through a misbehaving server; not a product.
        .executableTarget(
            name: "imagekernel-soak",
            dependencies: ["ImageKernel", "ImageKernelConformance", "LoaderHTTP", "CacheDisk", "CoderPNG", "CoderJPEG", "ImageKernelTestSupport"],
            swiftSettings: strict
        ),
        .target(name: "ImageKernelConformance", dependencies: ["ImageKernel"], swiftSettings: strict),
        // The 8-bit convolution kernels (AVX2 chosen at run time); internal to Transformers.
        .target(name: "CTransformKernels"),
        .target(name: "Transformers", dependencies: ["ImageKernel", "CTransformKernels"], swiftSettings: strict),
        .executableTarget(
            name: "imagekernel",
            dependencies: [
                "ImageKernel", "LoaderFile", "LoaderHTTP", "CoderPNG", "CoderJPEG", "CoderHEIF", "CoderWebP", "CoderGIF", "CoderBMP", "CacheDisk",
                "CacheRedis", "Transformers", "CoderTIFF", "CoderJXL", "CoderSVG", "ColorLCMS", "LoaderS3",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "Digests",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CacheDiskTests",
            // The coders encode and decode image-only entries (DiskCache.Configuration.imageEncoder).
            dependencies: ["ImageKernelTestSupport", "CacheDisk", "cachedisk-stress", "ImageKernel", "ImageKernelConformance", "CoderPNG", "CoderJPEG"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CacheRedisTests",
            dependencies: [
                "ImageKernelTestSupport", "CacheRedis", "CacheDisk", "ImageKernel", "ImageKernelConformance",
                // FleetCoalescerTests: an ImageManager over HTTP with PNGs on a cluster tier.
                "LoaderHTTP", "CoderPNG",
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "ImageKernelTests", dependencies: ["ImageKernelTestSupport", "ImageKernel", "ImageKernelConformance"], swiftSettings: strict),
        .testTarget(
            name: "CoderJPEGTests",
            dependencies: ["ImageKernelTestSupport", "CoderJPEG", "ImageKernelConformance", "Digests"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderPNGTests",
            dependencies: ["ImageKernelTestSupport", "CoderPNG", "ImageKernelConformance", "Digests"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderHEIFTests",
            dependencies: [
                "ImageKernelTestSupport", "CoderHEIF", "ImageKernelConformance", "LoaderFile", "CoderPNG", "CoderJPEG",
                "Digests",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderWebPTests",
            dependencies: ["ImageKernelTestSupport", "AnimationReference", "CoderWebP", "ImageKernelConformance"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderGIFTests",
            dependencies: ["ImageKernelTestSupport", "AnimationReference", "CoderGIF", "ImageKernelConformance"],
            exclude: ["Reference"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderBMPTests",
            // CoderPNG: the PNG coder BMPCoder is given for PNG entries; AnimationReference: sha256Hex and rgba8.
            dependencies: ["ImageKernelTestSupport", "AnimationReference", "CoderBMP", "CoderPNG", "ImageKernelConformance"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderTIFFTests",
            dependencies: ["ImageKernelTestSupport", "AnimationReference", "CoderTIFF", "ImageKernelConformance"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderJXLTests",
            dependencies: ["ImageKernelTestSupport", "AnimationReference", "CoderJXL", "CoderPNG", "ImageKernelConformance"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoderSVGTests",
            dependencies: ["ImageKernelTestSupport", "AnimationReference", "CoderSVG", "ImageKernelConformance"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ColorLCMSTests",
            dependencies: ["ColorLCMS", "CLCMS", "ImageKernel", "ImageKernelTestSupport", "CoderJPEG", "CoderPNG", "CoderWebP", "CoderHEIF", "Transformers", "LoaderFile"],
            swiftSettings: strict
        ),
        .testTarget(name: "LoaderFileTests", dependencies: ["LoaderFile", "ImageKernelConformance"], swiftSettings: strict),
        .testTarget(
            name: "LoaderHTTPTests",
            dependencies: ["ImageKernelTestSupport", "LoaderHTTP", "ImageKernelConformance"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LoaderS3Tests",
            dependencies: ["ImageKernelTestSupport", "LoaderS3", "LoaderHTTP", "ImageKernel", "ImageKernelConformance"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CacheS3Tests",
            dependencies: ["ImageKernelTestSupport", "CacheS3", "LoaderS3", "ImageKernel", "ImageKernelConformance"],
            swiftSettings: strict
        ),
        .testTarget(name: "DigestsTests", dependencies: ["Digests"], swiftSettings: strict),
        .testTarget(name: "ImageKernelConformanceTests", dependencies: ["ImageKernel", "ImageKernelConformance"], swiftSettings: strict),
        .testTarget(
            name: "TransformersTests",
            dependencies: [
                // AnimationReference: sha256Hex, the hash REFERENCE.tsv uses.
                "ImageKernelTestSupport", "AnimationReference", "Transformers", "ImageKernel", "ImageKernelConformance", "CoderJPEG",
                // CTransformKernels: to compare its SIMD kernels with the portable ones.
                "CTransformKernels",
            ],
            exclude: ["Reference"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "imagekernelTests",
            dependencies: ["ImageKernelTestSupport", "imagekernel", "ImageKernel", "ColorLCMS", "CoderPNG", "CoderJPEG"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
