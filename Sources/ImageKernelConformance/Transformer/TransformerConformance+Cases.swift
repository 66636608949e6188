import Foundation
import ImageKernel

extension TransformerConformance {
    func transform(_ image: Image) -> Result<Image, ImageKernelError> {
        do { return .success(try transformer.transform(image)) } catch { return .failure(error) }
    }

    /// Transforms an input that must transform into a consistent image.
    func transformed(_ image: Image, _ name: String, _ context: CaseContext) throws(ConformanceFailure) -> Image {
        let input = Describe.image(name, image) + " through '\(transformer.key)'"
        switch transform(image) {
        case .failure(let error): throw context.failure(input, "transform threw on an input it must handle", underlying: error)
        case .success(let output):
            if let problem = ImageShape.problem(output) { throw context.failure(input, "the output is inconsistent: \(problem)") }
            return output
        }
    }

    func checkKeyIsStableAndNonEmpty(_ context: CaseContext) throws(ConformanceFailure) {
        let first = transformer.key
        if first.isEmpty { throw context.failure("the key", "the key is empty; it must name the configuration") }
        for _ in 0..<3 where transformer.key != first {
            throw context.failure("the key \"\(first)\"", "the key changed to \"\(transformer.key)\" between reads")
        }
    }

    func checkOutputIsValidImage(_ context: CaseContext) throws(ConformanceFailure) {
        for (index, image) in inputs.enumerated() { _ = try transformed(image, "input \(index)", context) }
    }

    func checkOutputIsDeterministic(_ context: CaseContext) throws(ConformanceFailure) {
        for (index, image) in inputs.enumerated() {
            let first = try transformed(image, "input \(index)", context)
            let second = try transformed(image, "input \(index)", context)
            if first != second {
                throw context.failure(
                    Describe.image("input \(index)", image) + " through '\(transformer.key)'",
                    "two transforms of the same input differ: \(Describe.summary(first)) and \(Describe.summary(second))")
            }
        }
    }

    /// Each image must give a consistent output or a `.transform` error.
    func checkTolerates(_ images: [Image], _ context: CaseContext) throws(ConformanceFailure) {
        for image in images {
            let input = Describe.image("gradient", image) + " through '\(transformer.key)'"
            switch transform(image) {
            case .success(let output):
                if let problem = ImageShape.problem(output) { throw context.failure(input, "the output is inconsistent: \(problem)") }
            case .failure(let error) where error.stage != .transform:
                throw context.failure(input, "a refusal must have stage transform, not \(error.stage)", underlying: error)
            case .failure:
                continue
            }
        }
    }

    func checkHonorsRowPadding(_ context: CaseContext) throws(ConformanceFailure) {
        for (index, image) in inputs.enumerated() {
            let tight = Self.repacked(image, padding: 0)
            let padded = Self.repacked(image, padding: 12)
            let plain = try transformed(tight, "input \(index)", context)
            let fromPadded = try transformed(padded, "input \(index) with padded rows", context)
            if plain.width != fromPadded.width || plain.height != fromPadded.height || ImageShape.rgba8(plain) != ImageShape.rgba8(fromPadded) {
                throw context.failure(
                    Describe.image("input \(index) with padded rows", padded) + " through '\(transformer.key)'",
                    "the output differs from the output for the same pixels without padding (bytesPerRow ignored?)")
            }
        }
    }

    /// The same pixels with `padding` bytes (0xA5) after each row.
    static func repacked(_ image: Image, padding: Int) -> Image {
        let rowBytes = image.width * image.pixelFormat.bytesPerPixel
        var pixels: [UInt8] = []
        pixels.reserveCapacity((rowBytes + padding) * image.height)
        for row in 0..<image.height {
            let start = row * image.bytesPerRow
            pixels += image.pixels[start..<start + rowBytes]
            pixels += [UInt8](repeating: 0xA5, count: padding)
        }
        var copy = image
        copy.pixels = pixels
        copy.bytesPerRow = rowBytes + padding
        return copy
    }

    func checkConcurrentUseAgrees(_ context: CaseContext) throws(ConformanceFailure) {
        var expected: [Image] = []
        for (index, image) in inputs.enumerated() { expected.append(try transformed(image, "input \(index)", context)) }
        let (transformer, inputs, threads, baseline) = (self.transformer, self.inputs, concurrency, expected)
        let firstProblem = Locked<ConformanceFailure?>(nil)
        Threads.fanOut(threads) { thread in
            for round in 0..<max(8, 32 / inputs.count) {
                let index = (thread + round) % inputs.count
                let outcome = Result { () throws(ImageKernelError) in try transformer.transform(inputs[index]) }
                guard case .success(let output) = outcome, output == baseline[index] else {
                    let failure = context.failure(
                        Describe.image("input \(index)", inputs[index]) + " through '\(transformer.key)' on thread \(thread) of \(threads)",
                        "a concurrent transform gave a different result than one thread alone")
                    firstProblem.withLock { $0 = $0 ?? failure }
                    return
                }
            }
        }
        if let failure = firstProblem.withLock({ $0 }) { throw failure }
    }
}
