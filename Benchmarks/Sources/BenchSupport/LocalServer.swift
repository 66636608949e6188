import Foundation

/// Starting a server process on a random free-looking port of 127.0.0.1 and waiting until it listens.
enum LocalServer {
    /// Runs `executable` with the arguments for a port (up to five ports); the process and its
    /// port once it accepts connections, or nil.
    static func start(_ executable: String, arguments: (Int) throws -> [String]) throws -> (Process, Int)? {
        for _ in 0..<5 {
            let port = Int.random(in: 20000...60000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = try arguments(port)
            try process.run()
            if waitForListener(port: port, process: process) { return (process, port) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        return nil
    }

    static func waitForListener(port: Int, process: Process) -> Bool {
        for _ in 0..<200 {
            guard process.isRunning else { return false }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
            close(fd)
            if connected { return true }
            usleep(20_000)
        }
        return false
    }
}
