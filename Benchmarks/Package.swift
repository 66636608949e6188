// swift-tools-version:6.0
// Benchmarks live in their own package so `swift test` on the main package never builds them.
// Run them with `bash Benchmarks/run.sh` (release builds); each prints ratios against the raw C
// library or tool doing the same work in the same run.
import PackageDescription

let package = Package(
    name: "ImageKernelBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ImageKernel", path: ".."),
    ],
    targets: [
        .target(name: "BenchSupport"),
        .target(name: "CBenchJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .executableTarget(
            name: "bench-jpeg",
            dependencies: ["BenchSupport", "CBenchJPEG", .product(name: "CoderJPEG", package: "ImageKernel")]
        ),
        .executableTarget(
            name: "bench-color",
            dependencies: ["BenchSupport", .product(name: "ColorLCMS", package: "ImageKernel"), .product(name: "CoderJPEG", package: "ImageKernel"), .product(name: "Transformers", package: "ImageKernel")]
        ),
        .executableTarget(
            name: "bench-smartcrop",
            dependencies: ["BenchSupport", .product(name: "CoderJPEG", package: "ImageKernel"), .product(name: "Transformers", package: "ImageKernel")]
        ),
        .executableTarget(
            name: "bench-resize",
            dependencies: ["BenchSupport", .product(name: "Transformers", package: "ImageKernel")]
        ),
        .executableTarget(
            name: "bench-disk",
            dependencies: ["BenchSupport", .product(name: "CacheDisk", package: "ImageKernel")]
        ),
        .executableTarget(
            name: "bench-kernel",
            dependencies: ["BenchSupport", .product(name: "ImageKernel", package: "ImageKernel")]
        ),
        .target(name: "CBenchPNG", linkerSettings: [.linkedLibrary("png")]),
        .executableTarget(
            name: "bench-png",
            dependencies: [
                "BenchSupport", "CBenchPNG",
                .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "CoderPNG", package: "ImageKernel"),
            ]
        ),
        .executableTarget(
            name: "bench-scaledown",
            dependencies: [
                "BenchSupport", "CBenchPNG", "CBenchJPEG", .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "CoderPNG", package: "ImageKernel"), .product(name: "CoderJPEG", package: "ImageKernel"),
            ]
        ),
        .target(name: "CBenchWebP", linkerSettings: [.linkedLibrary("webp"), .linkedLibrary("webpdemux")]),
        .executableTarget(
            name: "bench-webp",
            dependencies: [
                "BenchSupport", "CBenchWebP",
                .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "CoderWebP", package: "ImageKernel"),
            ]
        ),
        .target(name: "CBenchGIF", linkerSettings: [.linkedLibrary("gif")]),
        .executableTarget(
            name: "bench-gif",
            dependencies: [
                "BenchSupport", "CBenchGIF",
                .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "CoderGIF", package: "ImageKernel"),
            ]
        ),
        // librsvg and cairo called directly (bench-svg's baseline); pkg-config's flags through the system library.
        .systemLibrary(name: "CBenchLibRSVG", pkgConfig: "librsvg-2.0"),
        .target(name: "CBenchSVG", dependencies: ["CBenchLibRSVG"]),
        .executableTarget(
            name: "bench-svg",
            dependencies: ["BenchSupport", "CBenchSVG", .product(name: "ImageKernel", package: "ImageKernel"), .product(name: "CoderSVG", package: "ImageKernel")]
        ),
        .target(name: "CBenchTIFF", linkerSettings: [.linkedLibrary("tiff")]),
        .executableTarget(
            name: "bench-tiff",
            dependencies: [
                "BenchSupport", "CBenchTIFF",
                .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "CoderTIFF", package: "ImageKernel"),
            ]
        ),
        .target(name: "CBenchJXL", linkerSettings: [.linkedLibrary("jxl"), .linkedLibrary("jxl_threads")]),
        .executableTarget(
            name: "bench-jxl",
            dependencies: [
                "BenchSupport", "CBenchJXL",
                .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "CoderJXL", package: "ImageKernel"),
            ]
        ),
        .executableTarget(
            name: "bench-bmp",
            dependencies: [
                "BenchSupport",
                .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "CoderBMP", package: "ImageKernel"),
                .product(name: "CoderPNG", package: "ImageKernel"),
            ]
        ),
        .executableTarget(
            name: "bench-http",
            dependencies: [
                "BenchSupport", .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "LoaderHTTP", package: "ImageKernel"),
            ]
        ),
        .executableTarget(
            name: "bench-coalesce",
            dependencies: [
                "BenchSupport", .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "LoaderHTTP", package: "ImageKernel"), .product(name: "CoderJPEG", package: "ImageKernel"),
            ]
        ),
        .executableTarget(
            name: "bench-grid",
            dependencies: [
                "BenchSupport", .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "CoderJPEG", package: "ImageKernel"), .product(name: "CoderPNG", package: "ImageKernel"),
            ]
        ),
        .executableTarget(
            name: "bench-e2e",
            dependencies: [
                "BenchSupport", .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "LoaderHTTP", package: "ImageKernel"), .product(name: "CoderJPEG", package: "ImageKernel"),
                .product(name: "CoderPNG", package: "ImageKernel"), .product(name: "CacheDisk", package: "ImageKernel"),
            ]
        ),
        .target(name: "CBenchHEIF", linkerSettings: [.linkedLibrary("heif")]),
        .executableTarget(
            name: "bench-heif",
            dependencies: [
                "BenchSupport", "CBenchHEIF",
                .product(name: "ImageKernel", package: "ImageKernel"), .product(name: "CoderHEIF", package: "ImageKernel"),
            ]
        ),
        .executableTarget(
            name: "bench-bulk",
            dependencies: [
                "BenchSupport", .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "LoaderHTTP", package: "ImageKernel"), .product(name: "CoderJPEG", package: "ImageKernel"),
                .product(name: "CoderPNG", package: "ImageKernel"), .product(name: "CacheDisk", package: "ImageKernel"),
            ]
        ),
        .executableTarget(
            name: "bench-s3",
            dependencies: [
                "BenchSupport", .product(name: "ImageKernel", package: "ImageKernel"), .product(name: "LoaderS3", package: "ImageKernel"),
                .product(name: "ImageKernelTestSupport", package: "ImageKernel"),
            ]
        ),
        .executableTarget(
            name: "bench-redis-cluster",
            dependencies: [
                "BenchSupport", .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "CacheRedis", package: "ImageKernel"), .product(name: "ImageKernelTestSupport", package: "ImageKernel"),
            ]
        ),
        .executableTarget(
            name: "bench-redis",
            dependencies: [
                "BenchSupport", .product(name: "ImageKernel", package: "ImageKernel"),
                .product(name: "CacheRedis", package: "ImageKernel"), .product(name: "CacheDisk", package: "ImageKernel"),
                .product(name: "LoaderHTTP", package: "ImageKernel"), .product(name: "CoderJPEG", package: "ImageKernel"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
