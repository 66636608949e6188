import Foundation

/// Runs Debian's `vipsthumbnail` (libvips-tools) as a process.
enum Vips {
    static let executable: String? = ["/usr/bin/vipsthumbnail", "/usr/local/bin/vipsthumbnail"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Wall-clock seconds for one `vipsthumbnail -s SIZE -o OUT files...` run.
    static func run(_ files: [URL], size: String, outputDirectory: URL, environment: [String: String] = [:]) throws -> Double {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-s", size, "-o", outputDirectory.path + "/%s_vips.jpg"] + files.map(\.path)
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = clock.now - start
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
