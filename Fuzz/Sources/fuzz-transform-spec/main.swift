import Foundation
import FuzzSupport
import ImageKernel
import Transformers

/// The transform-spec parser: any text either parses or gives a typed error. A spec that parses
/// has a normalised key that parses again to the same key, and is applied to a small image
/// (and, as an animation of two frames, through `transformAnimation`) when its numbers are
/// small. `watermark` steps composite a small watermark.
let watermark: Image = {
    do {
        return try Image(width: 3, height: 2, pixelFormat: .rgba8, pixels: (0..<24).map { UInt8($0 * 10) })
    } catch {
        fatalError("the watermark image: \(error)")
    }
}()

let sample: Image = {
    do {
        return try Image(width: 9, height: 7, pixelFormat: .rgba8, pixels: [UInt8](repeating: 0x80, count: 9 * 7 * 4))
    } catch {
        fatalError("the sample image: \(error)")
    }
}()

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let text = String(decoding: fuzzInput(start, count), as: UTF8.self)
    guard let spec = try? TransformSpec(parsing: text, threadLimit: 1, watermark: watermark) else { return 0 }
    let key = spec.key
    guard let again = try? TransformSpec(parsing: key, threadLimit: 1, watermark: watermark) else {
        preconditionFailure("the normalised key '\(key)' of '\(text)' does not parse")
    }
    precondition(again.key == key, "normalising '\(key)' gave '\(again.key)'")
    // Only specs whose numbers are small are applied: the fuzzer looks for crashes, not for the
    // time a legitimate 16000x16000 resize takes.
    let numbers = text.split { !$0.isNumber }.map { Int($0) ?? .max }
    if numbers.allSatisfy({ $0 <= 512 }) {
        if let image = try? spec.transform(sample) { DecodeHarness.touch(image) }
        if let animation = try? Image(animating: [ImageFrame(image: sample, duration: 0.1), ImageFrame(image: sample, duration: 0.1)], loopCount: 0),
           let image = try? spec.transformAnimation(animation) {
            for frame in image.allFrames { DecodeHarness.touch(frame.image) }
        }
    }
    return 0
}

runFuzzer { fuzz($0, $1) }
