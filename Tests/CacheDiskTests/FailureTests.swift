@testable import CacheDisk
import Foundation
import Glibc
import ImageKernel
import Testing

/// Full disks and unwritable directories: typed errors, nothing else lost, the cache keeps working.
/// Each test says (on stdout) which mechanism actually ran.
@Suite(.serialized) struct FailureTests {
    @Test func fullDiskGivesDiskFullAndLosesNothing() throws {
        let mountPoint = TemporaryDirectory("enospc")
        let mounted = Mounts.tmpfs(at: mountPoint.url, size: 256 << 10)
        defer { if mounted { Mounts.unmount(mountPoint.url) } }
        print("CacheDisk ENOSPC test: \(mounted ? "real 256 KiB tmpfs" : "injected ENOSPC (mount refused)")")
        let directory = mountPoint.child("cache")
        var configuration = DiskCache.Configuration(directory: directory, maxSize: 0)
        let cache = DiskCache(configuration: configuration)
        var stored: [Int] = []
        var failure: ImageKernelError?
        for i in 0..<100 {
            if !mounted, i == 3 {
                configuration.faults = FaultInjection(writeErrno: ENOSPC)
                let injected = DiskCache(configuration: configuration)
                failure = #expect(throws: ImageKernelError.self) { try injected.storeData(bytes(40_000), forKey: "k\(i)") }
                break
            }
            do {
                try cache.storeData(bytes(40_000, seed: UInt8(i)), forKey: "k\(i)")
                stored.append(i)
            } catch {  // typed: ImageKernelError
                failure = error
                break
            }
        }
        let error = try #require(failure, "the disk never filled")
        #expect(error.code == .diskFull && error.stage == .cache && error.plugin == "CacheDisk")
        #expect(!stored.isEmpty)
        for i in stored { #expect(cache.data(forKey: "k\(i)") == bytes(40_000, seed: UInt8(i))) }
        #expect(Disk.temporaryNames(directory).isEmpty)
        #expect(cache.count() == stored.count)
        // Room again: the cache works.
        try cache.removeData(forKey: "k\(stored[0])")
        try cache.storeData(bytes(1_000), forKey: "small")
        #expect(cache.data(forKey: "small") == bytes(1_000))
    }

    @Test func readOnlyFileSystemGivesPermissionDeniedAndStillServesReads() throws {
        let mountPoint = TemporaryDirectory("erofs")
        let mounted = Mounts.tmpfs(at: mountPoint.url, size: 1 << 20)
        defer { if mounted { Mounts.unmount(mountPoint.url) } }
        let directory = mountPoint.child("cache")
        var configuration = DiskCache.Configuration(directory: directory)
        do {
            let writer = DiskCache(configuration: configuration)
            try writer.storeData(bytes(1_000), forKey: "existing")
            writer.waitUntilIdle()
        }
        // A file system cannot become read-only while the writer holds its ledger open, as above.
        let realReadOnly = mounted && Mounts.remount(mountPoint.url, readOnly: true)
        if realReadOnly {
            print("CacheDisk EROFS test: real read-only tmpfs remount")
        } else {
            print("CacheDisk EROFS test: injected EROFS (mount refused)")
            configuration.faults = FaultInjection(createErrno: EROFS)
        }
        let cache = DiskCache(configuration: configuration)
        let error = #expect(throws: ImageKernelError.self) { try cache.storeData(bytes(10), forKey: "new") }
        #expect(error?.code == .permissionDenied && error?.plugin == "CacheDisk")
        #expect(cache.data(forKey: "existing") == bytes(1_000))
        #expect(cache.data(forKey: "new") == nil)
        if realReadOnly {  // only a real read-only file system also refuses the unlink
            let removal = #expect(throws: ImageKernelError.self) { try cache.removeData(forKey: "existing") }
            #expect(removal?.code == .permissionDenied)
            #expect(cache.data(forKey: "existing") == bytes(1_000))
        }
        cache.clean()
        #expect(cache.count() == 1)
    }

    /// Root ignores permission bits, so as root the store runs in a child process that drops to
    /// `nobody` first; as another user, a directory without write permission does it in-process.
    @Test func unwritableDirectoryGivesPermissionDenied() throws {
        let parent = TemporaryDirectory("eacces")
        let directory = parent.child("cache")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        chmod(parent.path, 0o755)
        chmod(directory.path, 0o755)
        if geteuid() == 0 {
            print("CacheDisk EACCES test: child process dropped to uid 65534 on a root-owned 0755 directory")
            let child = try StressChild(["store-as", directory.path, "65534"])
            let (output, status, _) = child.finish()
            #expect(status == 0)
            #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "error permission_denied")
        } else {
            print("CacheDisk EACCES test: in-process on a 0555 directory")
            chmod(directory.path, 0o555)
            defer { chmod(directory.path, 0o755) }
            let cache = DiskCache(configuration: .init(directory: directory))
            let error = #expect(throws: ImageKernelError.self) { try cache.storeData(bytes(10), forKey: "k") }
            #expect(error?.code == .permissionDenied)
        }
        #expect(Disk.entryNames(directory).isEmpty)
    }

    @Test func injectedFaultsLeaveNoTemporaryFiles() throws {
        let directory = TemporaryDirectory()
        var configuration = DiskCache.Configuration(directory: directory.url)
        configuration.faults = FaultInjection(writeErrno: EIO)
        let cache = DiskCache(configuration: configuration)
        let error = #expect(throws: ImageKernelError.self) { try cache.storeData(bytes(10), forKey: "k") }
        #expect(error?.code == .ioError)
        #expect(Disk.temporaryNames(directory.url).isEmpty && Disk.entryNames(directory.url).isEmpty)
    }
}
