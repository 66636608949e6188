// swift-tools-version:6.0
// Small runnable programs that show ImageKernel at work. Their own package, so the main test
// run never builds them:  swift run --package-path Examples thumbnailer Examples/images/*
import PackageDescription

let package = Package(
    name: "ImageKernelExamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ImageKernel", path: ".."),
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
    ],
    swiftLanguageModes: [.v6]
)
