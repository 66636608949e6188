import Foundation
import ImageKernel
import ImageKernelTestSupport

// imagekernel-soak --seconds N [--seed S]: the fault soak that scripts/soak.sh runs. It exits 0
// only when nothing crashed or hung, every load completed exactly once, every disk-cache hit is
// the bytes the origin served, and open files and resident memory are back within 10 % of
// where they were once the process had warmed up (after a quarter of the run).
var seconds = 120.0
var seed = UInt64.random(in: 0...UInt64.max)
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seconds": seconds = Double(arguments.next() ?? "") ?? seconds
    case "--seed": seed = UInt64(arguments.next() ?? "") ?? seed
    default:
        FileHandle.standardError.write(Data("usage: imagekernel-soak [--seconds N] [--seed S]\n".utf8))
        exit(2)
    }
}

exit(await SoakRun.run(seconds: seconds, seed: seed))
