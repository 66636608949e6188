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
        try SIMDLevelLock.held {
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
    }

    /// The column kernels at every row length up to 200 (the SIMD levels' full steps, and the
    /// masked or scalar ends) and every tap count up to 9 (odd ones pair a row with zeros),
    /// with negative taps and sums outside 0...255 that must clamp.
    @Test func theColumnKernelsGiveThePortableBytesAtEveryLength() {
        SIMDLevelLock.held {
            defer { ik_set_simd_enabled(2) }
            let stride = 256, precision: Int32 = 14
            var seed: UInt32 = 7
            func next() -> UInt32 { seed = seed &* 1_664_525 &+ 1_013_904_223; return seed >> 8 }
            let source = (0..<(9 * stride)).map { _ in UInt8(truncatingIfNeeded: next()) }
            let first = (0..<9).map { _ in Int16(Int(next() % 24_000) - 6_000) }
            let second = (0..<9).map { _ in Int16(Int(next() % 24_000) - 6_000) }
            var compared = 0
            source.withUnsafeBufferPointer { pixels in
                let rows: [UnsafePointer<UInt8>?] = (0..<9).map { pixels.baseAddress! + $0 * stride }
                for count in Int32(1)...9 {
                    for bytes in 1...200 {
                        func run(_ level: Int32) -> ([UInt8], [UInt8], [UInt8]) {
                            ik_set_simd_enabled(level)
                            var one = [UInt8](repeating: 0xA5, count: stride), two0 = one, two1 = one
                            ik_convolve_columns_u8(rows, count, first, precision, &one, bytes)
                            ik_convolve_columns2_u8(rows, count, first, second, precision, &two0, &two1, bytes)
                            return (one, two0, two1)
                        }
                        let portable = run(0)
                        for level in Int32(1)...2 {
                            let simd = run(level)
                            // The bytes past `bytes` keep their fill: a masked end writes nothing there.
                            #expect(simd == portable, "level \(ik_simd_level()), \(count) taps, \(bytes) bytes")
                            compared += 1
                        }
                    }
                }
            }
            #expect(compared == 9 * 200 * 2)
        }
    }

    /// The byte transpose at every level, for sizes around its 16- and 64-byte blocks; the
    /// bytes around the destination stay as they were.
    @Test func theTransposeIsExactAtEveryLevelAndSize() {
        SIMDLevelLock.held {
            defer { ik_set_simd_enabled(2) }
            let sizes = [1, 2, 15, 16, 17, 31, 33, 63, 64, 65, 80, 130]
            let sourceStride = 140, destinationStride = 150
            let source = (0..<(130 * sourceStride)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
            var compared = 0
            for width in sizes {
                for height in sizes {
                    var expected = [UInt8](repeating: 0x5A, count: 130 * destinationStride)
                    for y in 0..<height {
                        for x in 0..<width { expected[x * destinationStride + y] = source[y * sourceStride + x] }
                    }
                    for level in Int32(0)...2 {
                        ik_set_simd_enabled(level)
                        var out = [UInt8](repeating: 0x5A, count: 130 * destinationStride)
                        ik_transpose_u8(source, sourceStride, &out, destinationStride, Int32(width), Int32(height))
                        #expect(out == expected, "level \(ik_simd_level()), \(width)x\(height)")
                        compared += 1
                    }
                }
            }
            #expect(compared == sizes.count * sizes.count * 3)
        }
    }

    @Test func theCPUsBestLevelIsUsedByDefault() {
        ik_set_simd_enabled(2)
        #if arch(x86_64)
        // Every x86-64 machine this project targets has AVX2.
        #expect(ik_simd_level() >= 1)
        #endif
    }
}
