import CoderJPEG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing
@testable import Transformers

/// `YCbCrBandedResize`: the planes resized band by band while a decode reports its rows give
/// the bytes of `ResizeTransformer.transform(_:subsampling:)` on the finished planes.
@Suite("Banded resize of Y′CbCr planes")
struct BandedResizeTests {
    /// Drives a banded resize from the decode's own reports, on the decoding thread, and keeps a
    /// copy of its output (the resize's memory goes with it).
    final class Driver: YCbCrDecodeObserver {
        let resize: ResizeTransformer
        var banded: YCbCrBandedResize?
        var reports: [(rows: Int, done: Int)] = []
        var ended: Bool?

        init(_ resize: ResizeTransformer) { self.resize = resize }

        func decodeStarted(_ planes: YCbCrPlanePointers) -> Bool {
            banded = YCbCrBandedResize(resize, source: planes, subsampling: .s420)
            return banded != nil
        }

        func rowsDecoded(_ lumaRows: Int) {
            guard let banded else { return }
            banded.advance(sourceLumaRows: lumaRows)
            reports.append((lumaRows, banded.outputLumaRowsDone))
        }

        func decodeEnded(failed: Bool) { ended = failed }

        func tightOutput() -> [[UInt8]] {
            guard let output = banded?.output else { return [] }
            return output.planes.map { plane in
                (0..<plane.height).flatMap { y in UnsafeBufferPointer(start: plane.base + y * plane.bytesPerRow, count: plane.width) }
            }
        }
    }

    static func tight(_ image: Image) -> [UInt8] {
        (0..<image.height).flatMap { y in image.pixels[(y * image.bytesPerRow)..<(y * image.bytesPerRow + image.width)] }
    }

    /// 400x300 at q85 (the cold benchmark's sources) from the corpus' landscape, 4:2:0 or 4:4:4.
    static func source(chroma444: Bool) throws -> Data {
        let photo = try JPEGCoder().decode(TestData.data(PlanarResizeTests.landscape), options: DecodeOptions())
        let small = try ResizeTransformer(.fill, width: 400, height: 300).transform(photo)
        return try JPEGCoder().encode(small, as: .jpeg, options: EncodeOptions(quality: 0.85, chromaSubsampling444: chroma444))
    }

    static let resizes: [ResizeTransformer] = [
        ResizeTransformer(.fill, width: 300, height: 200),
        ResizeTransformer(.fill, width: 200, height: 200, gravity: .north),
        ResizeTransformer(.fit, width: 301, height: 301, filter: .bicubic),
        ResizeTransformer(.fit, width: 97, height: 61),
        ResizeTransformer(.fill, width: 150, height: 130, filter: .bilinear),
    ]

    @Test(arguments: ["400x300", "400x300-444", "landscape", "testorig"])
    func theBandsGiveTheWholePlanesBytes(_ name: String) throws {
        // Which resizes run banded depends on the kernel level, which other tests change.
        try SIMDLevelLock.held {
            let data: Data
            switch name {
            case "400x300": data = try Self.source(chroma444: false)
            case "400x300-444": data = try Self.source(chroma444: true)
            case "landscape": data = try TestData.data(PlanarResizeTests.landscape)
            default: data = try TestData.data("jpeg/libjpeg-turbo/testorig.jpg")  // 227x149: rows end mid-band
            }
            var banded = 0
            for resize in Self.resizes {
                let driver = Driver(resize)
                let planes = try #require(try JPEGCoder().decodeYCbCr(data, options: DecodeOptions(), observer: driver))
                let whole = try resize.transform(planes, subsampling: .s420)
                guard driver.banded != nil else { continue }  // a route the bands do not have: resized whole
                banded += 1
                #expect(driver.ended == false)
                let output = driver.tightOutput()
                #expect(output.count == 3)
                #expect(output[0] == Self.tight(whole.luma), "\(name) \(resize.key)")
                #expect(output[1] == Self.tight(whole.blueDifference), "\(name) \(resize.key)")
                #expect(output[2] == Self.tight(whole.redDifference), "\(name) \(resize.key)")
                // Rows came out while the decode ran, never went back, and all of them by its end.
                let done = driver.reports.map(\.done)
                #expect(done == done.sorted())
                #expect(done.last == whole.height)
                if planes.height >= 300 { #expect(done.dropLast().contains { $0 > 0 }, "\(name) \(resize.key): no rows before the end") }
            }
            #expect(banded >= 3, "\(name): only \(banded) of the resizes ran banded")
        }
    }

    @Test func aFailedDecodeIsReportedOnce() throws {
        let data = try Self.source(chroma444: false)
        // The scan cut short: libjpeg stops with an error (a warning this coder treats as one).
        let cut = data.prefix(data.count / 2)
        let driver = Driver(ResizeTransformer(.fill, width: 300, height: 200))
        // Under the level lock: the banded route needs the SIMD level, which other tests change.
        SIMDLevelLock.held {
            #expect(throws: ImageKernelError.self) { _ = try JPEGCoder().decodeYCbCr(cut, options: DecodeOptions(), observer: driver) }
        }
        #expect(driver.banded != nil)
        #expect(driver.ended == true)
    }
}
