import BenchSupport
import CoderPNG
import Foundation
import ImageKernel

/// Thumbnail decode time against a full decode of the same file. The row-by-row box average must
/// never cost more than the full decode (ratio = full / thumbnail >= 1.00x).
///
/// Both are timed in alternating rounds by the calling thread's CPU time (the machine is shared:
/// wall time counts other processes' turns) and by wall time; each round runs `batch` decodes so
/// that small images are well above the clocks' resolution.
func benchThumbnails(coder: PNGCoder) throws {
    let boxes: [Int?] = [32, 64, 128, 200, 256, 400, nil]
    let sources: [(name: String, width: Int, height: Int, channels: Int, rounds: Int, batch: Int)] = [
        ("RGB8 400x300", 400, 300, 3, 31, 20), ("RGBA8 400x300", 400, 300, 4, 31, 20),
        ("RGB8 6000x4000", 6000, 4000, 3, 7, 1), ("RGBA8 6000x4000", 6000, 4000, 4, 5, 1),
    ]
    let smallOnly = CommandLine.arguments.contains("--small")
    for (name, width, height, channels, rounds, batch) in sources where !smallOnly || width <= 400 {
        let image = photoLike(width: width, height: height, channels: channels)
        let data = try coder.encode(image, as: .png, options: EncodeOptions(compressionLevel: 6))
        for box in boxes {
            // nil: a box as large as the image, which decodes at full size.
            let side = box ?? max(image.width, image.height)
            let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: side, height: side))
            let thumbnail = try coder.decode(data, options: options)
            let times = pairedCPU(rounds: rounds) {
                for _ in 0..<batch { _ = try? coder.decode(data, options: options) }
            } baseline: {
                for _ in 0..<batch { _ = try? coder.decode(data, options: DecodeOptions()) }
            }
            let label = "\(name) box \(box.map(String.init) ?? "full") -> \(thumbnail.width)x\(thumbnail.height)"
            print(String(
                format: "thumbnail %-36@ cpu: thumb %9.3f ms  full %9.3f ms  ratio %.3fx | wall: thumb %9.3f ms  full %9.3f ms  ratio %.3fx",
                label as NSString, times.cpu.ours * 1e3 / Double(batch), times.cpu.baseline * 1e3 / Double(batch),
                times.cpu.baseline / times.cpu.ours, times.wall.ours * 1e3 / Double(batch),
                times.wall.baseline * 1e3 / Double(batch), times.wall.baseline / times.wall.ours))
        }
    }
}

/// Decodes one generated image (`width`×`width`·3/4, `channels` 8-bit channels) `count` times
/// with a thumbnail box of `box` (0: a plain full decode) and prints the median CPU time: a
/// steady loop for a profiler to sample.
func profileThumbnail(coder: PNGCoder, channels: Int, box: Int, count: Int, width: Int) {
    let image = photoLike(width: width, height: width * 3 / 4, channels: channels)
    let data = try! coder.encode(image, as: .png, options: EncodeOptions(compressionLevel: 6))
    let options = box == 0 ? DecodeOptions() : DecodeOptions(thumbnailPixelSize: PixelSize(width: box, height: box))
    var times: [Double] = []
    for _ in 0..<count {
        let start = threadCPUSeconds()
        _ = try? coder.decode(data, options: options)
        times.append(threadCPUSeconds() - start)
    }
    print(String(format: "%d channels %dx%d box %d: median cpu %.3f ms over %d decodes", channels, image.width, image.height, box, Measure.median(times) * 1e3, count))
}

/// This thread's CPU time in seconds.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Median CPU and wall seconds of `ours` and `baseline`, alternating which runs first.
func pairedCPU(rounds: Int, ours: () -> Void, baseline: () -> Void) -> (cpu: (ours: Double, baseline: Double), wall: (ours: Double, baseline: Double)) {
    ours()
    baseline()
    let clock = ContinuousClock()
    var cpu: ([Double], [Double]) = ([], []), wall: ([Double], [Double]) = ([], [])
    func time(_ body: () -> Void) -> (Double, Double) {
        let start = threadCPUSeconds()
        let elapsed = clock.measure(body)
        return (threadCPUSeconds() - start, Measure.seconds(elapsed))
    }
    for round in 0..<rounds {
        for first in round % 2 == 0 ? [true, false] : [false, true] {
            let (c, w) = time(first ? ours : baseline)
            if first { cpu.0.append(c); wall.0.append(w) } else { cpu.1.append(c); wall.1.append(w) }
        }
    }
    return ((Measure.median(cpu.0), Measure.median(cpu.1)), (Measure.median(wall.0), Measure.median(wall.1)))
}
