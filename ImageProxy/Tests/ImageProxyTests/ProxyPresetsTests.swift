import Foundation
import ImageKernel
import ImageProxyCore
import Testing

@Suite("Presets and the output options of a path")
struct ProxyPresetsTests {
    static let source = "/plain/http%3A%2F%2Fcdn.example.com%2Fa.jpg"

    @Test func presetsExpandInPlaceWithTheirOptionsAndNestedPresets() throws {
        let presets = try ProxyPresets(definitions: [
            "thumb=resize:fill:100:100/q:70", "sharp = sharpen:1", "card=preset:thumb/round:8/f:webp", "both=pr:card:sharp",
        ])
        #expect(presets.expanded["card"] == ["resize:fill:100:100", "q:70", "round:8", "f:webp"])
        let request = try ProxyRequest.parse(path: "/unsafe/gray/preset:card/blur:2" + Self.source, presets: presets)
        #expect(request.steps == ["gray", "resize:fill:100:100", "round:8", "blur:2"])
        #expect(request.quality == 70)
        #expect(request.format == .webp)
        let two = try ProxyRequest.parse(path: "/unsafe/preset:thumb:sharp" + Self.source, presets: presets)
        #expect(two.steps == ["resize:fill:100:100", "sharpen:1"])
        #expect(try ProxyRequest.parse(path: "/unsafe/pr:both" + Self.source, presets: presets).steps
            == ["resize:fill:100:100", "round:8", "sharpen:1"])
        // A later option in the path wins over the preset's.
        #expect(try ProxyRequest.parse(path: "/unsafe/preset:thumb/q:90" + Self.source, presets: presets).quality == 90)
        // The signature covers the path as sent, preset names and all.
        #expect(request.signedPath.hasPrefix("/gray/preset:card/blur:2/plain/"))
    }

    @Test func unknownPresetsAreA400AndPresetsOnlyRefusesEverythingElse() throws {
        let presets = try ProxyPresets(definitions: ["thumb=resize:fill:100:100"])
        for path in ["/unsafe/preset:nope", "/unsafe/preset:thumb:nope", "/unsafe/preset:"] {
            let error = #expect(throws: ProxyError.self) { try ProxyRequest.parse(path: path + Self.source, presets: presets) }
            #expect(error?.status == 400 && error?.code == "unknown_preset", "\(path): \(String(describing: error))")
        }
        // Without any presets configured, a preset segment is still an unknown preset, not a step.
        let none = #expect(throws: ProxyError.self) { try ProxyRequest.parse(path: "/unsafe/preset:thumb" + Self.source) }
        #expect(none?.code == "unknown_preset")

        let only = try ProxyPresets(definitions: ["thumb=resize:fill:100:100", "big=resize:fit:800:800"], onlyPresets: true)
        #expect(try ProxyRequest.parse(path: "/unsafe/preset:thumb" + Self.source, presets: only).steps == ["resize:fill:100:100"])
        #expect(try ProxyRequest.parse(path: "/unsafe/preset:thumb/pr:big" + Self.source + "@webp", presets: only).format == .webp)
        for spec in ["resize:fill:10:10", "preset:thumb/q:10", "q:10", "f:png", "preset:thumb/blur:30", "max_bytes:10", "filename:x", ""] {
            let path = "/unsafe" + (spec.isEmpty ? "" : "/" + spec) + Self.source
            let error = #expect(throws: ProxyError.self, "\(spec)") { try ProxyRequest.parse(path: path, presets: only) }
            #expect(error?.status == 403 && error?.code == "presets_only", "\(spec): \(String(describing: error))")
        }
    }

    @Test func cyclesUnknownNamesDuplicatesAndBadDefinitionsFailTheConfiguration() {
        let bad: [[String]] = [
            ["a=preset:b", "b=preset:a"], ["a=preset:a"], ["a=resize:fit:9:9/preset:b", "b=preset:c", "c=pr:a"],
            ["a=preset:missing"], ["a=blur:1", "a=blur:2"], ["no-equals-sign"], ["=blur:1"], ["bad name=blur:1"], ["a/b=blur:1"],
            // Doubling at every level: 2^7 segments, past the 64 allowed.
            (0..<7).map { "p\($0)=pr:p\($0 + 1):p\($0 + 1)" } + ["p7=blur:1"],
        ]
        for definitions in bad {
            let error = #expect(throws: ProxyError.self, "\(definitions)") { try ProxyPresets(definitions: definitions) }
            #expect(error?.code == "invalid_configuration", "\(definitions)")
        }
    }

    @Test func aPresetsFileHasOneDefinitionALineAndComments() throws {
        let file = """
            # sizes for the shop
            thumb=resize:fill:100:100

              card = preset:thumb/round:8   
            # empty=
            empty=
            """
        let definitions = ProxyPresets.definitions(inFile: file)
        #expect(definitions == ["thumb=resize:fill:100:100", "card = preset:thumb/round:8", "empty="])
        let presets = try ProxyPresets(definitions: definitions)
        #expect(presets.expanded == ["thumb": ["resize:fill:100:100"], "card": ["resize:fill:100:100", "round:8"], "empty": []])
    }

    @Test func outputOptionsAreReadAndRefusedByValue() throws {
        let request = try ProxyRequest.parse(path: "/unsafe/resize:fit:10:10/progressive/mb:5000/fn:caf%C3%A9%20menu/att/q:55" + Self.source)
        #expect(request.steps == ["resize:fit:10:10"])
        #expect(request.output.progressive == true && request.output.maxBytes == 5000 && request.output.quality == 55)
        #expect(request.output.filename == "café menu" && request.output.attachment)
        let off = try ProxyRequest.parse(path: "/unsafe/progressive:0/attachment:false/max_bytes:1/filename:a:b" + Self.source)
        #expect(off.output.progressive == false && !off.output.attachment && off.output.maxBytes == 1 && off.output.filename == "a:b")
        for spec in ["progressive:yes", "max_bytes:0", "mb:-1", "mb:x", "max_bytes:99999999999", "filename:", "fn:%0A", "fn:%zz", "att:2", "q:101"] {
            let error = #expect(throws: ProxyError.self, "\(spec)") { try ProxyRequest.parse(path: "/unsafe/\(spec)" + Self.source) }
            #expect(error?.code == "invalid_spec", "\(spec)")
        }
    }

    @Test func localSourcesParseWithoutAHost() throws {
        let request = try ProxyRequest.parse(path: "/unsafe/plain/local%3A%2F%2F%2Fphotos%2Fa%20b.jpg")
        #expect(request.source.scheme == "local" && request.source.path == "/photos/a b.jpg")
        #expect(LocalSourcePolicy.isLocal(request.source))
        for bad in ["local%3A%2F%2Fhost%2Fa.jpg", "local%3Aa.jpg", "file%3A%2F%2F%2Fetc%2Fpasswd"] {
            #expect(throws: ProxyError.self, "\(bad)") { try ProxyRequest.parse(path: "/unsafe/plain/" + bad) }
        }
    }
}
