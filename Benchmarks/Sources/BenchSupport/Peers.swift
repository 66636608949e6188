import Foundation

/// The `Benchmarks/` directory of this checkout (helper scripts live under `Benchmarks/Scripts`).
public func benchmarksDirectory() -> URL {
    var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while dir.path != "/", dir.lastPathComponent != "Benchmarks" { dir = dir.deletingLastPathComponent() }
    return dir
}

/// Python interpreters of the peer venvs that `Benchmarks/peers/setup.sh` makes.
public enum Peers {
    /// The fastest Pillow available: `$IMAGEKERNEL_PILLOW_PYTHON`, else the Pillow-SIMD venv, else
    /// the stock Pillow venv. Returns the interpreter and a label for tables; nil when none exists.
    public static func pillowPython() -> (python: String, label: String)? {
        if let forced = ProcessInfo.processInfo.environment["IMAGEKERNEL_PILLOW_PYTHON"] { return (forced, "Pillow (\(forced))") }
        let root = ProcessInfo.processInfo.environment["IMAGEKERNEL_PEERS"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/imagekernel-peers").path
        for (name, label) in [("pillow-simd", "Pillow-SIMD"), ("pillow", "Pillow")] {
            let python = "\(root)/\(name)/bin/python"
            // setup.sh touches .ok once the venv's install succeeded.
            if FileManager.default.isExecutableFile(atPath: python), FileManager.default.fileExists(atPath: "\(root)/\(name)/.ok") {
                return (python, label)
            }
        }
        return nil
    }

    /// Runs `executable` with `arguments`, returning its standard output; throws on a non-zero exit.
    public static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
