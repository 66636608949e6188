import Foundation
import Glibc

/// Runs the `cachedisk-stress` executable that SwiftPM builds next to the test bundle.
struct StressChild {
    /// The executable's path, or nil when it was not built (then the test fails with a reason).
    static let executable: URL? = {
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        for directory in candidates {
            let url = directory.appendingPathComponent("cachedisk-stress")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }()

    let process = Process()
    private let output = Pipe()

    init(_ arguments: [String]) throws {
        guard let executable = Self.executable else {
            throw ChildError.notBuilt
        }
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
    }

    /// Blocks until the child prints a line (or closes its output); returns it.
    func readLine() -> String? {
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte.first == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Waits for the child to exit; returns everything it printed after what was read, and its status.
    func finish() -> (output: String, status: Int32, signalled: Bool) {
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: rest, as: UTF8.self), process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    func kill() { Glibc.kill(process.processIdentifier, SIGKILL) }

    enum ChildError: Error, CustomStringConvertible {
        case notBuilt
        var description: String { "cachedisk-stress was not found next to the test bundle; build with `swift build --build-tests`" }
    }
}
