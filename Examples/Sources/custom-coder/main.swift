// custom-coder: register a third-party coder, load through the manager, and prove the coder
// honours the contract by running ImageKernelConformance's coder suite on it.
import Foundation
import ImageKernel
import ImageKernelConformance
import LoaderFile

let coder = PPMCoder()
var pixels: [UInt8] = []
for y in 0..<48 { for x in 0..<64 { pixels += [UInt8(x * 4), UInt8(y * 5), UInt8((x + y) % 256)] } }
let sample = try Image(width: 64, height: 48, pixelFormat: .rgb8, pixels: pixels)
let data = try coder.encode(sample, as: PPMCoder.format, options: EncodeOptions())
let file = FileManager.default.temporaryDirectory.appendingPathComponent("sample.ppm")
try data.write(to: file)

let manager = ImageManager(configuration: .init(loaders: LoaderRegistry([FileLoader()]), coders: CoderRegistry()))
let token = manager.coders.register(coder)  // newest first: overrides any built-in coder
let result = try await manager.image(for: file)
print("loaded \(file.lastPathComponent) through \(coder.name): \(result.image!.width)x\(result.image!.height) \(result.image!.pixelFormat)")
manager.coders.unregister(token)

let suite = CoderConformance(
    coder: coder,
    fixtures: [CoderFixture(name: "sample.ppm", data: data, format: PPMCoder.format, width: 64, height: 48, pixelFormat: .rgb8, rgba8Pixels: sample.rgba8Pixels())],
    encodeTargets: [.init(format: PPMCoder.format, isLossless: true, pixelFormats: [.rgb8])],
    claimedFormats: [PPMCoder.format])
let failures = await suite.failures()
if failures.isEmpty {
    print("PPMCoder passes all \(CoderConformance.Case.allCases.count) conformance cases")
} else {
    for failure in failures { print("FAIL \(failure)") }
    exit(1)
}
