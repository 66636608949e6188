import BenchSupport
import Foundation

extension Measure {
    /// CPU seconds (user + system) and wall seconds of one run of `body`.
    static func cpuAndWall(_ body: () throws -> Void) rethrows -> (cpu: Double, wall: Double) {
        let clock = ContinuousClock()
        let cpuStart = cpuSeconds()
        let start = clock.now
        try body()
        return (cpuSeconds() - cpuStart, seconds(clock.now - start))
    }
}
