import CoderSVG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Nothing a document names is fetched or read: every external reference is dropped before any
/// I/O. A real server on 127.0.0.1 holds every resource and counts requests; a real temp file
/// holds a red image the pixels must not show.
@Suite("SVG: no network, no file system")
struct IsolationTests {
    /// A red 100×100 SVG: where it shows, the decode read something it must not.
    static let red = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="red"/></svg>"#.utf8)
    /// A 1×1 red PNG.
    static let redPNG = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==")!

    @Test func httpReferencesAreNeverRequested() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        for name in ["red.svg", "style.css", "import.css", "font.woff", "use.svg", "fe.svg", "xi.svg"] {
            server.addFile(name, data: name.hasSuffix(".svg") ? Self.red : Data("rect { fill: red }".utf8))
        }
        server.addFile("red.png", data: Self.redPNG)
        let base = server.baseURL.absoluteString
        let svg = """
            <?xml version="1.0"?>
            <?xml-stylesheet type="text/css" href="\(base)/style.css"?>
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xi="http://www.w3.org/2001/XInclude" width="100" height="100">
              <style>@import url("\(base)/import.css"); @font-face { font-family: X; src: url("\(base)/font.woff") }</style>
              <filter id="f"><feImage href="\(base)/fe.svg"/></filter>
              <rect width="100" height="100" fill="green"/>
              <image width="100" height="100" href="\(base)/red.png"/>
              <image width="100" height="100" xlink:href="\(base)/red.svg"/>
              <use href="\(base)/use.svg#x"/>
              <rect width="10" height="10" filter="url(#f)"/>
              <xi:include href="\(base)/xi.svg"/>
              <text x="10" y="50" font-family="X">text</text>
            </svg>
            """
        let image = try withinHangGuard("http references") { try SVGCoder().decode(Data(svg.utf8), options: DecodeOptions()) }
        #expect(pixel(image, 50, 20) == [0, 128, 0, 255], "green, nothing drawn over it")
        #expect(server.requests.isEmpty, "requests: \(server.requests.map(\.path))")
        #expect(server.connectionCount == 0)
    }

    @Test func fileReferencesAreNeverRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("svg-isolation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let svgFile = directory.appendingPathComponent("red.svg")
        let pngFile = directory.appendingPathComponent("red.png")
        try Self.red.write(to: svgFile)
        try Self.redPNG.write(to: pngFile)
        // The document claims to live beside the files: relative references would hit them if a
        // base were set. It is not: the coder never gives librsvg a base file.
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">
              <style>@import url("\(svgFile.absoluteString)");</style>
              <rect width="100" height="100" fill="green"/>
              <image width="50" height="50" href="\(pngFile.absoluteString)"/>
              <image x="50" width="50" height="50" xlink:href="\(svgFile.absoluteString)"/>
              <image y="50" width="50" height="50" href="\(svgFile.path)"/>
              <image x="50" y="50" width="50" height="50" href="red.svg"/>
              <use href="\(svgFile.absoluteString)#x"/>
            </svg>
            """
        let image = try withinHangGuard("file references") { try SVGCoder().decode(Data(svg.utf8), options: DecodeOptions()) }
        for (x, y) in [(25, 25), (75, 25), (25, 75), (75, 75)] {
            #expect(pixel(image, x, y) == [0, 128, 0, 255], "at \(x),\(y)")
        }
    }

    @Test func dataURLImagesStillRender() throws {
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">
              <image width="10" height="10" preserveAspectRatio="none" href="data:image/png;base64,\(Self.redPNG.base64EncodedString())"/>
            </svg>
            """
        let image = try SVGCoder().decode(Data(svg.utf8), options: DecodeOptions())
        #expect(pixel(image, 5, 5) == [255, 0, 0, 255])
    }

    @Test func externalEntitiesAreNeverLoaded() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("svg-xxe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("secret.txt")
        try Data("red".utf8).write(to: secret)
        let svg = """
            <?xml version="1.0"?>
            <!DOCTYPE svg [<!ENTITY colour SYSTEM "\(secret.absoluteString)">]>
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="&colour;"/></svg>
            """
        switch render(Data(svg.utf8)) {
        case .success(let image): #expect(pixel(image, 5, 5) != [255, 0, 0, 255], "the entity's file was read")
        case .failure(let error): #expect(error.plugin == "CoderSVG" && error.code == .corruptData, "\(error)")
        }
    }
}
