import CTransformKernels
import ImageKernel
import Testing
import Transformers

/// The 8-bit path's AVX2 and AVX-512 VNNI kernels give exactly the portable C kernels' bytes.
@Suite("Fixed-point kernels", .serialized)
struct FixedPointKernelTests {
    static let specs = [
        "resize:stretch:37:23:lanczos3", "resize:stretch:173:9:bicubic", "resize:stretch:19:61:bilinear:enlarge",
        "resize:stretch:64:48:box", "resize:fill:30:30:lanczos3:ce", "resize:stretch:1:1:lanczos3", "blur:1.5", "blur:6",
        // Enlargements: consecutive output rows share their source rows (the two-output vertical kernel).
        "resize:stretch:300:200:bicubic:enlarge", "resize:stretch:140:400:lanczos3:enlarge",
    ]

    @Test func everyLevelGivesThePortableKernelsBytes() throws {
        defer { ik_set_simd_enabled(2) }
        let formats: [PixelFormat] = [.gray8, .grayAlpha8, .rgb8, .rgba8, .rgba8Premultiplied]
        var compared = 0
        for format in formats {
            // Odd sizes, so row ends and the 4-tap groups never line up.
            let image = try noiseImage(width: 131, height: 77, format: format, seed: 11)
            for spec in Self.specs {
                let chain = try TransformSpec(parsing: spec)
                ik_set_simd_enabled(0)
                let portable = try chain.transform(image)
                for level in Int32(1)...2 {
                    ik_set_simd_enabled(level)
                    let simd = try chain.transform(image)
                    #expect(simd.pixels == portable.pixels, "\(format) \(spec): level \(ik_simd_level()) differs from the portable kernels")
                    compared += 1
                }
            }
        }
        #expect(compared == 5 * Self.specs.count * 2)
    }

    @Test func theCPUsBestLevelIsUsedByDefault() {
        ik_set_simd_enabled(2)
        #if arch(x86_64)
        // Every x86-64 machine this project targets has AVX2.
        #expect(ik_simd_level() >= 1)
        #endif
    }
}
