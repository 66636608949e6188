// swift-tools-version:6.0
// libFuzzer targets, one per input surface. Their own package, so the test build never compiles
// them. Build and run them with `bash scripts/fuzz.sh [SECONDS]` (from the repository root),
// which passes the sanitizer flags:
//   swift build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address,undefined \
//     -Xswiftc -parse-as-library -Xcc -fsanitize=fuzzer-no-link,address,undefined
import PackageDescription

let kernel = Target.Dependency.product(name: "ImageKernel", package: "ImageKernel")

/// One fuzz target: an executable whose only entry point is `LLVMFuzzerTestOneInput`.
func fuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport", kernel] + products.map { .product(name: $0, package: "ImageKernel") },
        path: "Sources/\(name)")
}

let package = Package(
    name: "ImageKernelFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ImageKernel", path: ".."),
        // The image proxy's request parsing (its core library, without the HTTP server).
        .package(name: "ImageProxy", path: "../ImageProxy"),
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: [kernel, .product(name: "ImageKernelConformance", package: "ImageKernel")]),
        fuzzTarget("fuzz-png", ["CoderPNG"]),
        fuzzTarget("fuzz-jpeg", ["CoderJPEG"]),
        fuzzTarget("fuzz-heif", ["CoderHEIF"]),
        fuzzTarget("fuzz-webp", ["CoderWebP"]),
        fuzzTarget("fuzz-gif", ["CoderGIF"]),
        fuzzTarget("fuzz-bmp", ["CoderBMP"]),
        fuzzTarget("fuzz-tiff", ["CoderTIFF"]),
        fuzzTarget("fuzz-jxl", ["CoderJXL"]),
        fuzzTarget("fuzz-svg", ["CoderSVG"]),
        fuzzTarget("fuzz-sniff", []),
        fuzzTarget("fuzz-disk-entry", ["CacheDisk"]),
        fuzzTarget("fuzz-http-response", ["LoaderHTTP"]),
        fuzzTarget("fuzz-transform-spec", ["Transformers"]),
        fuzzTarget("fuzz-icc", ["ColorLCMS"]),
        fuzzTarget("fuzz-exif", []),
        .executableTarget(
            name: "fuzz-proxy-path",
            dependencies: ["FuzzSupport", .product(name: "ImageProxyCore", package: "ImageProxy")],
            path: "Sources/fuzz-proxy-path"),
        .executableTarget(
            name: "fuzz-imgproxy-path",
            dependencies: ["FuzzSupport", .product(name: "ImageProxyCore", package: "ImageProxy")],
            path: "Sources/fuzz-imgproxy-path"),
    ],
    swiftLanguageModes: [.v6]
)
