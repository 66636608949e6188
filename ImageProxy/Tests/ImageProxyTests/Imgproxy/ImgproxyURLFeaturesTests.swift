import Foundation
import ImageProxyCore
import Testing

/// imgproxy's `IMGPROXY_URL_REPLACEMENTS`, `IMGPROXY_BASE64_URL_INCLUDES_FILENAME` and client
/// hints (`IMGPROXY_ENABLE_CLIENT_HINTS`), ported from its v4 tests
/// (`options/parser/processing_options_test.go`, `clientfeatures/detector_test.go`).
@Suite("imgproxy compat: URL replacements, base64 file names, client hints")
struct ImgproxyURLFeaturesTests {
    func parse(_ path: String, _ settings: ImgproxySettings, hints: ImgproxyClientHints? = nil) throws -> ImgproxyPath {
        try ImgproxyPath.parse("/unsafe" + path, settings: settings, hints: hints)
    }

    static func base64(_ text: String) -> String { ProxyRequest.base64URLEncoded(Data(text.utf8)) }

    /// imgproxy's two chained replacements: `test://*/` → `test2://images.dev/${1}/dolor/`, then
    /// `test2://` → `http://`.
    static func replacements() throws -> ImgproxySettings {
        var settings = ImgproxySettings()
        settings.urlReplacements = [
            try ImgproxyURLReplacement(definition: "test://*/=test2://images.dev/${1}/dolor/"),
            try ImgproxyURLReplacement(definition: "test2://=http://"),
        ]
        return settings
    }

    @Test func replacementsRewriteBase64AndPlainSourcesInOrder() throws {
        let settings = try Self.replacements()
        let base64 = try parse("/size:100:100/\(Self.base64("test://lorem/ipsum.jpg?param=value")).png", settings)
        #expect(base64.source.absoluteString == "http://images.dev/lorem/dolor/ipsum.jpg?param=value")
        #expect(base64.options.format == .png)
        let plain = try parse("/size:100:100/plain/test://lorem/ipsum.jpg@png", settings)
        #expect(plain.source.absoluteString == "http://images.dev/lorem/dolor/ipsum.jpg")
        #expect(try parse("/plain/http://other.dev/a.jpg", settings).source.absoluteString == "http://other.dev/a.jpg", "no prefix match: unchanged")
    }

    @Test func replacementsComeBeforeTheBaseURL() throws {
        var settings = ImgproxySettings()
        settings.baseURL = "http://images.dev/"
        settings.urlReplacements = [try ImgproxyURLReplacement(definition: "cdn:=cdn/"), try ImgproxyURLReplacement(definition: "full:=http://images.dev/full/")]
        #expect(try parse("/plain/cdn:a.jpg", settings).source.absoluteString == "http://images.dev/cdn/a.jpg")
        #expect(try parse("/plain/full:a.jpg", settings).source.absoluteString == "http://images.dev/full/a.jpg", "already under the base URL")
        #expect(try parse("/plain/lorem/a.jpg", settings).source.absoluteString == "http://images.dev/lorem/a.jpg")
    }

    @Test func replacementsExpandAsGoDoes() throws {
        func expand(_ pattern: String, _ replacement: String, _ url: String) throws -> String {
            try ImgproxyURLReplacement(pattern: pattern, replacement: replacement).apply(to: url)
        }
        #expect(try expand("s3://*/*/", "http://$2.$1/", "s3://a/b/c.jpg") == "http://b.a/c.jpg")
        #expect(try expand("s3://*/", "http://$1x/", "s3://a/c.jpg") == "http:///c.jpg", "$1x names a capture 1x: nothing")
        #expect(try expand("s3://*/", "http://${1}x/$$/", "s3://a/c.jpg") == "http://ax/$/c.jpg")
        #expect(try expand("s3://*/", "[$0]", "s3://a/c.jpg") == "[s3://a/]c.jpg")
        #expect(try expand("a.b*", "x", "aXb.jpg") == "aXb.jpg", "the pattern's dot is literal")
        #expect(try expand("*", "[$1]", "ab/cd") == "[ab]/cd", "a wildcard stops at /")
        #expect(throws: ProxyError.self) { try ImgproxyURLReplacement(definition: "no-equals-sign") }
    }

    @Test func aBase64SourceMayEndInAFileName() throws {
        let url = "http://images.dev/lorem/ipsum.jpg?param=value"
        var settings = ImgproxySettings()
        settings.base64URLIncludesFilename = true
        let parsed = try parse("/size:100:100/\(Self.base64(url)).png/puppy.jpg", settings)
        #expect(parsed.source.absoluteString == url && parsed.options.format == .png)
        #expect(try parse("/size:100:100/\(Self.base64(url)).png", settings).source.absoluteString == url, "a single part is the URL")
        #expect(throws: ProxyError.self, "without the setting the file name is part of the base64") {
            try parse("/size:100:100/\(Self.base64(url)).png/puppy.jpg", ImgproxySettings())
        }
    }

    @Test(arguments: [
        (ImgproxyClientHints(), 0, 1.0), (ImgproxyClientHints(width: 100), 100, 1.0),
        (ImgproxyClientHints(dpr: 2), 0, 2.0), (ImgproxyClientHints(dpr: 2, width: 100), 50, 2.0),
    ])
    func clientHintsStartTheWidthAndDPR(hints: ImgproxyClientHints, width: Int, dpr: Double) throws {
        var settings = ImgproxySettings()
        settings.enablesClientHints = true
        let options = try parse("/plain/http://images.dev/lorem/ipsum.jpg@png", settings, hints: hints).options
        #expect(options.width == width && options.dpr == dpr)
    }

    @Test func theURLsOwnWidthAndDPRWinAndHintsCountOnlyWhenEnabled() throws {
        var settings = ImgproxySettings()
        settings.enablesClientHints = true
        let hints = ImgproxyClientHints(dpr: 2, width: 100)
        let options = try parse("/width:150/dpr:3.0/plain/http://images.dev/lorem/ipsum.jpg@png", settings, hints: hints).options
        #expect(options.width == 150 && options.dpr == 3)
        let off = try parse("/plain/http://images.dev/lorem/ipsum.jpg@png", ImgproxySettings(), hints: hints).options
        #expect(off.width == 0 && off.dpr == 1)
    }

    @Test func hintsAreReadAsImgproxysDetectorReadsThem() {
        func hints(_ headers: [String: String]) -> ImgproxyClientHints {
            ImgproxyClientHints { name in headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value }
        }
        #expect(hints(["DPR": "1.5"]) == ImgproxyClientHints(dpr: 1.5))
        #expect(hints(["Sec-CH-DPR": "2.0"]) == ImgproxyClientHints(dpr: 2))
        #expect(hints(["DPR": "3.0", "Sec-CH-DPR": "2.5"]) == ImgproxyClientHints(dpr: 2.5))
        #expect(hints(["DPR": "-1.0"]) == ImgproxyClientHints())
        #expect(hints(["DPR": "10.0"]) == ImgproxyClientHints())
        #expect(hints(["DPR": "abc"]) == ImgproxyClientHints())
        #expect(hints(["Width": "800"]) == ImgproxyClientHints(width: 800))
        #expect(hints(["Sec-CH-Width": "1024"]) == ImgproxyClientHints(width: 1024))
        #expect(hints(["Width": "1280", "Sec-CH-Width": "1440"]) == ImgproxyClientHints(width: 1440))
        #expect(hints(["Width": "-800"]) == ImgproxyClientHints())
        #expect(hints(["Width": "abc"]) == ImgproxyClientHints())
        #expect(hints(["sec-ch-dpr": "bad", "dpr": "2"]) == ImgproxyClientHints(dpr: 2), "a bad first hint falls through to the next")
    }
}
