import CoderPNG
import Foundation
import ImageKernel

/// Debian's libjxl 0.7 command-line tools (`libjxl-tools`, installed by scripts/deps.sh), run by
/// the tests on this machine as a second, independent caller of the same library.
enum LibjxlTools {
    /// Runs `tool` with `arguments`; the exit status.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/djxl") && FileManager.default.isExecutableFile(atPath: "/usr/bin/cjxl")
    }

    /// A fresh temporary directory.
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("coderjxl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// djxl's 8-bit decode of `file` (orientation applied, frame 0 of an animation) as RGBA.
    static func djxlRGBA8(_ file: URL) throws -> (pixels: [UInt8], width: Int, height: Int)? {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("out.png")
        guard try run("djxl", [file.path, png.path, "--bits_per_sample=8"]) == 0 else { return nil }
        let image = try PNGCoder().decode(Data(contentsOf: png), options: DecodeOptions(firstFrameOnly: true))
        return (image.rgba8Pixels(), image.width, image.height)
    }
}
