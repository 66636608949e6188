import Foundation
import ImageKernel
import ImageKernelConformance
import LoaderFile
import Testing

@Suite("LoaderFile")
struct FileLoaderTests {
    private func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loaderfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private func load(_ url: URL, loader: FileLoader = FileLoader(), options: LoaderOptions = [], progress: @escaping @Sendable (LoadProgress) -> Void = { _ in }) async throws(ImageKernelError) -> LoadResult {
        try await loader.load(ImageRequest(url: url), options: options, context: ImageContext(), progress: progress)
    }

    @Test func loadsFileURLsAndPlainPathsInChunksWithProgress() async throws {
        let dir = try temporaryDirectory()
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = dir.appendingPathComponent("a b.png")
        try bytes.write(to: file)
        let reports = Locked<[LoadProgress]>([])
        let loader = FileLoader(configuration: .init(chunkSize: 65_536))
        let result = try await load(file, loader: loader, options: .progressiveLoad) { p in reports.withLock { $0.append(p) } }
        #expect(result.data == bytes)
        let seen = reports.withLock { $0 }
        #expect(seen.count == 4)
        #expect(seen.map(\.received) == [65_536, 131_072, 196_608, 200_000])
        #expect(seen.allSatisfy { $0.expected == 200_000 })
        #expect(seen.reduce(Data()) { $0 + ($1.chunk ?? Data()) } == bytes, "chunks reassemble the file")

        let plain = try await load(URL(string: file.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!)!)
        #expect(plain.data == bytes)
        #expect(loader.canLoad(URL(string: "/tmp/x.png")!))
        #expect(loader.canLoad(file))
        #expect(!loader.canLoad(URL(string: "https://example.com/x.png")!))
    }

    @Test func missingFileIsNotFound() async throws {
        do {
            _ = try await load(URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).png"))
            Issue.record("loaded a missing file")
        } catch {  // typed: ImageKernelError
            #expect(error.code == .notFound)
            #expect(error.plugin == "LoaderFile")
            #expect(!error.isTransient)
        }
    }

    @Test func directoryIsRefused() async throws {
        let dir = try temporaryDirectory()
        do {
            _ = try await load(dir)
            Issue.record("loaded a directory")
        } catch { #expect(error.code == .isDirectory) }  // typed: ImageKernelError
    }

    @Test func tooLargeIsRefusedBeforeReading() async throws {
        let dir = try temporaryDirectory()
        let file = dir.appendingPathComponent("big.bin")
        try Data(count: 10_001).write(to: file)
        let loader = FileLoader(configuration: .init(maxFileSize: 10_000))
        let progressCalls = Locked(0)
        do {
            _ = try await load(file, loader: loader) { _ in progressCalls.withLock { $0 += 1 } }
            Issue.record("loaded a file over the limit")
        } catch { #expect(error.code == .tooLarge) }  // typed: ImageKernelError
        #expect(progressCalls.withLock { $0 } == 0)
    }

    /// Root bypasses permission bits, so this runs only for other users.
    @Test(.enabled(if: geteuid() != 0, "root reads mode-000 files"))
    func unreadableFileIsPermissionDenied() async throws {
        let dir = try temporaryDirectory()
        let file = dir.appendingPathComponent("secret.png")
        try Data([1, 2, 3]).write(to: file)
        chmod(file.path, 0)
        do {
            _ = try await load(file)
            Issue.record("read an unreadable file")
        } catch { #expect(error.code == .permissionDenied) }  // typed: ImageKernelError
    }

    @Test func pathThroughAFileIsNotFound() async throws {
        let dir = try temporaryDirectory()
        let file = dir.appendingPathComponent("f")
        try Data([1]).write(to: file)
        do {
            _ = try await load(file.appendingPathComponent("child.png"))
            Issue.record("loaded through a file")
        } catch { #expect(error.code == .notFound) }  // typed: ImageKernelError
    }

    @Test func cancellationBeforeLoadingThrowsCancelled() async throws {
        let dir = try temporaryDirectory()
        let file = dir.appendingPathComponent("c.png")
        try Data(count: 1000).write(to: file)
        let task = Task { () async -> Result<LoadResult, ImageKernelError> in
            do throws(ImageKernelError) { return .success(try await load(file)) } catch { return .failure(error) }
        }
        task.cancel()
        switch await task.value {
        case .success: Issue.record("loaded after cancel")
        case .failure(let error): #expect(error.code == .cancelled)  // typed: never a CancellationError
        }
    }
}

@Suite("LoaderFile conformance")
struct FileLoaderConformanceTests {
    @Test func passesTheLoaderSuite() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loaderfile-conf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("fixture.png")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try bytes.write(to: file)
        try await LoaderConformance(
            loader: FileLoader(configuration: .init(chunkSize: 16_384)), url: file, expectedData: bytes,
            unreachableURL: dir.appendingPathComponent("missing.png"), unreachableIsTransient: false
        ).run()
    }
}
