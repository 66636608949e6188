import Foundation
import ImageKernel

extension CoderConformance {
    func checkConcurrentUseAgrees(_ context: CaseContext) throws(ConformanceFailure) {
        let fixtures = try requireFixtures(context)
        // What one thread gets, alone.
        var expectedDecodes: [Image] = []
        for fixture in fixtures { expectedDecodes.append(try decodeFixture(fixture, decodeOptions, context)) }
        var jobs: [(name: String, source: Image, target: EncodeTarget, expected: Image)] = []
        for target in encodeTargets {
            let source = SyntheticImage.gradient(width: 33, height: 17, format: target.pixelFormats.first ?? .rgba8)
            guard case .success(let data) = encode(source, target), case .success(let image) = decode(data, decodeOptions) else {
                throw context.failure(Describe.image("gradient", source) + " as \(target.format)", "a single-threaded round trip failed")
            }
            jobs.append(("gradient as \(target.format)", source, target, image))
        }

        let firstProblem = Locked<ConformanceFailure?>(nil)
        let perThread = max(8, min(fixtures.count, 64))
        let decodeOptions = decodeOptions
        let (expected, roundTrips) = (expectedDecodes, jobs)
        Threads.fanOut(concurrency) { thread in
            func report(_ failure: ConformanceFailure) { firstProblem.withLock { $0 = $0 ?? failure } }
            for step in 0..<perThread {
                let index = (thread * 7 + step) % fixtures.count
                let fixture = fixtures[index]
                switch decode(fixture.data, decodeOptions) {
                case .success(let image) where image == expected[index]:
                    break
                case .success(let image):
                    return report(context.failure(
                        "\(fixture.described) on thread \(thread) of \(concurrency)",
                        "a concurrent decode gave \(Describe.summary(image)) with different content than a decode alone"))
                case .failure(let error):
                    return report(context.failure(
                        "\(fixture.described) on thread \(thread) of \(concurrency)", "a concurrent decode threw", underlying: error))
                }
                if step % 4 == 0, !roundTrips.isEmpty {
                    let job = roundTrips[(thread + step) % roundTrips.count]
                    let outcome = encode(job.source, job.target).flatMap { decode($0, decodeOptions) }
                    guard case .success(let image) = outcome, image == job.expected else {
                        return report(context.failure(
                            "\(job.name) on thread \(thread) of \(concurrency)",
                            "a concurrent encode and decode gave a different result than alone"))
                    }
                }
            }
        }
        if let failure = firstProblem.withLock({ $0 }) { throw failure }
    }
}
