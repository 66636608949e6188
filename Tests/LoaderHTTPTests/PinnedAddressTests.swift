import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

/// `HTTPLoader.PinnedAddresses`: a load connects to the pinned address of its host, never to
/// what resolving the name would give. `pinned.invalid` resolves nowhere (RFC 6761), so only the
/// pin can reach the test server.
@Suite struct PinnedAddressTests {
    func request(_ fixture: Fixture, host: String, path: String = "/files/png") -> ImageRequest {
        var components = URLComponents(url: fixture.server.url(path), resolvingAgainstBaseURL: false)!
        components.host = host
        return ImageRequest(url: components.url!)
    }

    func context(_ pins: [String: [String]]) -> ImageContext {
        var context = ImageContext()
        context[HTTPLoader.PinnedAddresses.self] = pins
        return context
    }

    @Test func aPinnedHostNameConnectsToThePinnedAddress() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let result = try await fixture.loader.load(
            request(fixture, host: "pinned.invalid"), options: [], context: context(["PINNED.invalid": ["127.0.0.1"]]),
            progress: { _ in })
        #expect(result.data == fixture.png)
        #expect(fixture.server.requests.last?.headers["host"]?.hasPrefix("pinned.invalid") == true)
    }

    @Test func withoutAPinTheNameIsResolvedAndFails() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let error = await loadError {
            try await fixture.loader.load(
                request(fixture, host: "pinned.invalid"), options: [], context: context(["other.invalid": ["127.0.0.1"]]),
                progress: { _ in })
        }
        #expect(error?.stage == .load)
        #expect(fixture.server.requests.isEmpty)
    }

    @Test func aPinThatIsNotAnAddressIsRefusedBeforeAnyRequest() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        for bad in ["localhost", "127.0.0.1\r\nX: y", "", "10.0.0.1:80"] {
            let error = await loadError {
                try await fixture.loader.load(
                    request(fixture, host: "pinned.invalid"), options: [], context: context(["pinned.invalid": [bad]]),
                    progress: { _ in })
            }
            #expect(error?.code == .invalidURL, "pin \(bad.debugDescription)")
        }
        #expect(fixture.server.requests.isEmpty)
    }

    @Test func loadsWithDifferentPinsDoNotShareATransfer() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let pinned = request(fixture, host: "pinned.invalid", path: "/files/png?pace=20&chunk=500")
        async let a = fixture.loader.load(pinned, options: [], context: context(["pinned.invalid": ["127.0.0.1"]]), progress: { _ in })
        async let b = fixture.loader.load(pinned, options: [], context: context(["pinned.invalid": ["127.0.0.1", "::1"]]), progress: { _ in })
        let (first, second) = try await (a, b)
        #expect(first.data == fixture.png && second.data == fixture.png)
        #expect(fixture.server.requests.count == 2)
    }
}
