import ImageKernel
import ImageKernelConformance
import Testing
import Transformers

/// The kernel's transformer conformance suite, for every built-in transformer.
@Suite("Transformer conformance")
struct ConformanceTests {
    static let specs = [
        "resize:fit:20:20", "resize:fill:20:9:bicubic:south", "resize:stretch:13:31:bilinear:enlarge", "resize:fit:9:9:box",
        "resize:fill:200:100:lanczos3:enlarge", "crop:10:7:northwest", "crop:2:3:10:10", "flip:h", "flip:v", "rotate:90", "rotate:180",
        "rotate:270", "rotate:33:ff8000c0", "orient", "round:5", "circle", "blur:1.5", "sharpen:1", "tint:3060ff80", "gray",
        "orient/resize:fill:16:12/round:4",
    ]

    @Test(arguments: specs)
    func everyBuiltInTransformerPassesTheSuite(_ spec: String) async throws {
        try await TransformerConformance(transformer: try TransformSpec(parsing: spec), concurrency: 4).run()
    }

    @Test func largeImagesSplitAcrossThreadsStillPass() async throws {
        // Big enough that the resampler splits rows across cores.
        let inputs = [try noiseImage(width: 300, height: 200, format: .rgba8), try noiseImage(width: 256, height: 160, format: .rgb16)]
        for spec in ["resize:fit:200:200", "blur:3"] {
            try await TransformerConformance(transformer: try TransformSpec(parsing: spec), inputs: inputs, concurrency: 2, timeout: .seconds(300)).run()
        }
    }
}
