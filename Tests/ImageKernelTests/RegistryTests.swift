import Foundation
import ImageKernel
import Testing

@Suite("Registries")
struct RegistryTests {
    @Test func newestCoderIsAskedFirstAndUnregisterRestoresOrder() throws {
        let registry = CoderRegistry()
        let builtIn = RawCoder(name: "builtin")
        let user = RawCoder(name: "user")
        registry.register(builtIn)
        let token = registry.register(user)
        let data = RawCoder.data(width: 1, height: 1)
        #expect(registry.coders.map(\.name) == ["user", "builtin"])
        #expect(registry.coder(forDecoding: data)?.name == "user")
        #expect(registry.unregister(token))
        #expect(!registry.unregister(token), "a token unregisters once")
        #expect(registry.coder(forDecoding: data)?.name == "builtin")
        #expect(registry.coder(forEncoding: .png)?.name == "builtin")
        #expect(registry.coder(forEncoding: .gif) == nil)
        do { _ = try registry.decode(Data([1, 2, 3])) } catch { #expect(error.code == .noCoder) }
    }

    @Test func newestLoaderIsAskedFirst() {
        let registry = LoaderRegistry()
        let a = MemoryLoader(), b = MemoryLoader(chunkSize: 1)
        registry.register(a)
        let token = registry.register(b)
        #expect((registry.loader(for: memURL("x")) as? MemoryLoader) === b)
        registry.unregister(token)
        #expect((registry.loader(for: memURL("x")) as? MemoryLoader) === a)
        #expect(registry.loader(for: URL(string: "https://x")!) == nil)
    }

    @Test func pluginsMayUseTheRegistryFromInsideTheirCalls() throws {
        // A coder that consults the registry while being asked: no deadlock, since plugin code
        // never runs under the registry's lock.
        final class Reentrant: ImageCoder, @unchecked Sendable {
            let name = "reentrant"
            weak var registry: CoderRegistry?
            func canDecode(_ data: Data) -> Bool { registry?.coders.count ?? 0 > 0 && false }
            func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image { throw .cancelled() }
        }
        let registry = CoderRegistry()
        let coder = Reentrant()
        coder.registry = registry
        registry.register(RawCoder())
        registry.register(coder)
        #expect(registry.coder(forDecoding: RawCoder.data(width: 1, height: 1))?.name == "RawCoder")
    }

    @Test func concurrentRegistrationIsSafe() async {
        let registry = CoderRegistry()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<8 {
                group.addTask {
                    for _ in 0..<200 {
                        let token = registry.register(RawCoder(name: "c\(i)"))
                        _ = registry.coder(forDecoding: RawCoder.data(width: 1, height: 1))
                        registry.unregister(token)
                    }
                }
            }
        }
        #expect(registry.coders.isEmpty)
    }
}
