import Foundation
import Glibc

/// Small tmpfs mounts for disk-full and read-only tests. Mounting needs root (CAP_SYS_ADMIN) and
/// may be refused in a container; callers fall back to injected faults and say which ran.
enum Mounts {
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus == 0
        } catch {
            return false
        }
    }

    static var mountTool: String? {
        ["/usr/bin/mount", "/bin/mount"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var umountTool: String? {
        ["/usr/bin/umount", "/bin/umount"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Mounts a tmpfs of `size` bytes at `directory`; false when mounting is not possible here
    /// (or `CACHEDISK_TEST_NO_MOUNT=1` asks for the fallbacks).
    static func tmpfs(at directory: URL, size: Int, readOnly: Bool = false) -> Bool {
        guard ProcessInfo.processInfo.environment["CACHEDISK_TEST_NO_MOUNT"] != "1" else { return false }
        guard geteuid() == 0, let mount = mountTool else { return false }
        let options = "size=\(size),mode=0755" + (readOnly ? ",ro" : "")
        return run(mount, ["-t", "tmpfs", "-o", options, "tmpfs", directory.path])
    }

    /// Remounts a mount read-only or read-write.
    static func remount(_ directory: URL, readOnly: Bool) -> Bool {
        guard let mount = mountTool else { return false }
        return run(mount, ["-o", "remount," + (readOnly ? "ro" : "rw"), directory.path])
    }

    static func unmount(_ directory: URL) {
        guard let umount = umountTool else { return }
        if !run(umount, [directory.path]) { run(umount, ["-l", directory.path]) }
    }
}
