import CoderJPEG
import Foundation
import ImageKernel
import ImageProxyCore
import ImageKernelTestSupport
import Testing
import Transformers

/// `PipelinedPlanarRender`: the resize and encode on a second thread, fed by the decode's row
/// reports, give the one-thread planar render's bytes, and a decode that fails midway ends in
/// its error (never a hang, never the second thread's garbage).
@Suite("Pipelined planar render")
struct PipelinedRenderTests {
    static func source400x300() throws -> Data {
        let photo = try JPEGCoder().decode(TestData.data("exif-orientation/recurser/Landscape_0.jpg"), options: DecodeOptions())
        let small = try ResizeTransformer(.fill, width: 400, height: 300).transform(photo)
        return try JPEGCoder().encode(small, as: .jpeg, options: EncodeOptions(quality: 0.85))
    }

    static func oneThread(_ data: Data, _ resize: ResizeTransformer, quality: Double) throws -> Data {
        let options = DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad)
        let planes = try #require(try JPEGCoder().decodeYCbCr(data, options: options))
        return try JPEGCoder().encode(try resize.transform(planes, subsampling: .s420), options: EncodeOptions(quality: quality))
    }

    @Test(arguments: ["400x300", "landscape", "testorig"])
    func theTwoThreadsGiveTheOneThreadBytes(_ name: String) throws {
        let data = switch name {
        case "400x300": try Self.source400x300()
        case "landscape": try TestData.data("exif-orientation/recurser/Landscape_0.jpg")
        default: try TestData.data("jpeg/libjpeg-turbo/testorig.jpg")
        }
        let limits = ProxyConfiguration(allowedOrigins: ["http://127.0.0.1/"])
        for resize in [ResizeTransformer(.fill, width: 300, height: 200), ResizeTransformer(.fit, width: 160, height: 160)] {
            let expected = try Self.oneThread(data, resize, quality: 0.8)
            for _ in 0..<20 {  // a few rounds, for the hand-offs' every interleaving
                let pipeline = PipelinedPlanarRender(resize: resize, options: EncodeOptions(quality: 0.8), limits: limits)
                _ = try JPEGCoder().decodeYCbCr(data, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad), observer: pipeline)
                let result = try #require(pipeline.result, "\(name) \(resize.key): the pipeline did not start")
                #expect(try result.get() == expected, "\(name) \(resize.key)")
            }
            // Through PlanarRender, alone (no thread limit) and beside others (a limit of 1).
            let alone = try TransformThreads.$limit.withValue(nil) { try PlanarRender.render(data, resize: resize, quality: 80, limits: limits) }
            let beside = try TransformThreads.$limit.withValue(1) { try PlanarRender.render(data, resize: resize, quality: 80, limits: limits) }
            #expect(alone == expected && beside == expected)
        }
    }

    @Test func aDecodeThatFailsMidwayThrowsItsError() throws {
        let data = try Self.source400x300()
        let limits = ProxyConfiguration(allowedOrigins: ["http://127.0.0.1/"])
        let resize = ResizeTransformer(.fill, width: 300, height: 200)
        for cut in [data.count / 3, data.count / 2, data.count - 40] {
            #expect(throws: ImageKernelError.self) {
                _ = try TransformThreads.$limit.withValue(nil) { try PlanarRender.render(data.prefix(cut), resize: resize, quality: 80, limits: limits) }
            }
        }
    }

    /// What ``PlanarRender/AfterEncode`` saw: the bytes, then the decode's outcome.
    final class AfterEncodeLog: Sendable {
        let bytes = Locked<Data?>(nil)
        let decodeSucceeded = Locked<Bool?>(nil)

        var hook: PlanarRender.AfterEncode {
            { data in
                self.bytes.withLock { $0 = data }
                return { succeeded in self.decodeSucceeded.withLock { $0 = succeeded } }
            }
        }

        /// The decode's outcome once the second thread has reported it (it may report after the
        /// render returned), or nil when nothing was reported within two seconds.
        func outcome() async -> Bool? {
            for _ in 0..<200 {
                if let done = decodeSucceeded.withLock({ $0 }) { return done }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return nil
        }
    }

    @Test func theSecondThreadHandsOverTheBytesAfterTheDecodeSucceeded() async throws {
        let data = try Self.source400x300()
        let limits = ProxyConfiguration(allowedOrigins: ["http://127.0.0.1/"])
        let resize = ResizeTransformer(.fill, width: 300, height: 200)
        let expected = try Self.oneThread(data, resize, quality: 0.8)
        for _ in 0..<10 {
            let log = AfterEncodeLog()
            let rendered = try TransformThreads.$limit.withValue(nil) {
                try PlanarRender.render(data, resize: resize, quality: 80, limits: limits, afterEncode: log.hook)
            }
            #expect(rendered == expected)
            #expect(log.bytes.withLock { $0 } == expected)
            #expect(await log.outcome() == true)
        }
        // Beside other renders there is no second thread: nothing is handed over.
        let log = AfterEncodeLog()
        _ = try TransformThreads.$limit.withValue(1) {
            try PlanarRender.render(data, resize: resize, quality: 80, limits: limits, afterEncode: log.hook)
        }
        #expect(log.bytes.withLock { $0 } == nil)
    }

    @Test func bytesDoneBeforeAFailedDecodeAreNeverHandedOverAsGood() async throws {
        // Cut in the last rows of blocks, which the 300x200 fill does not read: the encode can
        // finish before the decode fails there. The render throws, and the hook hears of the failure.
        let data = try Self.source400x300()
        let limits = ProxyConfiguration(allowedOrigins: ["http://127.0.0.1/"])
        let resize = ResizeTransformer(.fill, width: 300, height: 200)
        var handedOver = 0
        for cut in [data.count - 40, data.count - 200, data.count - 400, data.count * 19 / 20] {
            let log = AfterEncodeLog()
            #expect(throws: ImageKernelError.self) {
                _ = try TransformThreads.$limit.withValue(nil) {
                    try PlanarRender.render(data.prefix(cut), resize: resize, quality: 80, limits: limits, afterEncode: log.hook)
                }
            }
            if log.bytes.withLock({ $0 }) != nil {
                handedOver += 1
                #expect(await log.outcome() == false, "cut at \(cut) of \(data.count)")
            }
        }
        #expect(handedOver > 0, "no cut let the encode finish before the decode failed: the test tests nothing")
    }

    @Test func theSecondStageLeavesTheDecodesCPU() throws {
        // On a machine with one CPU there is nowhere to go.
        guard sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 else { return }
        // On a thread of its own, not one of the concurrency pool's.
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            guard let cpu = CPUPlacement.currentCPU(), let saved = CPUPlacement.leave(cpu) else {
                Issue.record("could not move off the current CPU")
                return
            }
            #expect(CPUPlacement.currentCPU() != cpu)
            CPUPlacement.restore(saved)
            // The whole mask again: leaving the CPU it is now on works as before.
            #expect(CPUPlacement.currentCPU().flatMap(CPUPlacement.leave).map { CPUPlacement.restore($0) } != nil)
        }
        thread.start()
        done.wait()
    }

}
