import ArgumentParser
import Foundation
import ImageProxyCore

extension ImageProxyCommand {
    /// Parses the command line with what the environment adds (``ProxyEnvironment``: every flag as
    /// `IMAGE_PROXY_<NAME>`, and imgproxy's `IMGPROXY_*` settings with `--compat imgproxy`; the
    /// command line wins), logs the settings it cannot honour, then runs.
    static func main() async {
        let commandLine = Array(CommandLine.arguments.dropFirst())
        do {
            let settings = try ProxyEnvironment.settings(environment: ProcessInfo.processInfo.environment, commandLine: commandLine)
            for note in settings.notes { FileHandle.standardError.write(Data("warning: \(note)\n".utf8)) }
            var command = try parseAsRoot(commandLine + settings.arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ProxyError {
            exit(withError: ValidationError(error.message))
        } catch {
            exit(withError: error)
        }
    }
}
