import Foundation
import ImageKernel
import ImageProxyCore
import Testing
import Transformers

/// imgproxy's option-parser expectations (`options/parser/processing_options_test.go`, v4),
/// ported: what a path parses to, and the paths it refuses.
@Suite("imgproxy compat: path grammar")
struct ImgproxyPathTests {
    static let origin = "http://images.dev/lorem/ipsum.jpg"

    func parse(_ path: String, _ settings: ImgproxySettings = ImgproxySettings()) throws -> ImgproxyPath {
        try ImgproxyPath.parse("/unsafe" + path, settings: settings)
    }

    static func base64(_ text: String) -> String { ProxyRequest.base64URLEncoded(Data(text.utf8)) }

    @Test func base64SourcesTakeTheirExtensionAsTheFormatAndMaySplitBySlashes() throws {
        let url = Self.origin + "?param=value"
        let parsed = try parse("/size:100:100/\(Self.base64(url)).png")
        #expect(parsed.source.absoluteString == url)
        #expect(parsed.options.format == .png)
        #expect(try parse("/size:100:100/\(Self.base64(url))").options.format == nil)
        let encoded = Self.base64(url)
        let split = encoded.prefix(8) + "/" + encoded.dropFirst(8)
        #expect(try parse("/w:10/\(split).jpg").source.absoluteString == url)
    }

    @Test func plainSourcesArePercentDecodedAndTakeTheirFormatAfterAt() throws {
        #expect(try parse("/size:100:100/plain/\(Self.origin)@png").options.format == .png)
        #expect(try parse("/size:100:100/plain/\(Self.origin)").options.format == nil)
        let escaped = (Self.origin + "?param=value").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try parse("/size:100:100/plain/\(escaped)@png").source.absoluteString == Self.origin + "?param=value")
    }

    @Test func theBaseURLIsPrependedToRelativeSources() throws {
        var settings = ImgproxySettings()
        settings.baseURL = "http://images.dev/"
        #expect(try parse("/size:100:100/plain/lorem/ipsum.jpg@png", settings).source.absoluteString == Self.origin)
        #expect(try parse("/size:100:100/\(Self.base64("lorem/ipsum.jpg?param=value")).png", settings).source.absoluteString == Self.origin + "?param=value")
    }

    @Test func theArgumentsSeparatorIsConfigurable() throws {
        var settings = ImgproxySettings()
        settings.argumentsSeparator = ","
        let options = try parse("/size,100,100,1/plain/\(Self.origin)", settings).options
        #expect(options.width == 100 && options.height == 100 && options.enlarge)
    }

    @Test func everyOptionAndItsShortFormParse() throws {
        var o = try parse("/resize:fill:100:200:1/plain/\(Self.origin)").options
        #expect(o.resizingType == .fill && o.width == 100 && o.height == 200 && o.enlarge)
        o = try parse("/rt:fill-down/s:10:20/mw:5/mh:6/z:1.5:2/dpr:2/plain/\(Self.origin)").options
        #expect(o.resizingType == .fillDown && o.width == 10 && o.height == 20 && o.minWidth == 5 && o.minHeight == 6)
        #expect(o.zoomWidth == 1.5 && o.zoomHeight == 2 && o.dpr == 2)
        o = try parse("/extend:1:so:10:20/plain/\(Self.origin)").options
        #expect(o.extend.enabled && o.extend.gravity == .init(.so, x: 10, y: 20))
        o = try parse("/gravity:fp:0.5:0.75/plain/\(Self.origin)").options
        #expect(o.gravity == .init(.fp, x: 0.5, y: 0.75))
        o = try parse("/crop:100:200:nowe:10:20/plain/\(Self.origin)").options
        #expect(o.cropWidth == 100 && o.cropHeight == 200 && o.cropGravity == .init(.nowe, x: 10, y: 20))
        #expect(try parse("/crop:100:200/plain/\(Self.origin)").options.cropGravity == nil)
        o = try parse("/quality:55/background:128:129:130/blur:0.2/sharpen:0.3/pix:4/plain/\(Self.origin)").options
        #expect(o.quality == 55 && o.background == RGBAColor(red: 128, green: 129, blue: 130, alpha: 255))
        #expect(o.blur == 0.2 && o.sharpen == 0.3 && o.pixelate == 4)
        #expect(try parse("/background:ffddee/plain/\(Self.origin)").options.background == RGBAColor(hex: "ffddee"))
        #expect(try parse("/background:fff/background:/plain/\(Self.origin)").options.background == nil)
        o = try parse("/watermark:0.5:soea:10:20:0.6/plain/\(Self.origin)").options
        #expect(o.watermarkOpacity == 0.5 && o.watermarkPosition == .init(.soea, x: 10, y: 20) && o.watermarkScale == 0.6)
        o = try parse("/cachebuster:123/sm:true/kcr:1/scp:0/eth:1/ar:0/rot:90/fl:1:0/pd:1:2/t:10:ff0000/plain/\(Self.origin)").options
        #expect(o.cacheBuster == "123" && o.stripMetadata == true && o.keepCopyright == true && o.stripColorProfile == false && o.enforceThumbnail == true)
        #expect(!o.autoRotate && o.rotate == 90 && o.flipHorizontal && !o.flipVertical)
        #expect(o.padding == (1, 2, 1, 2) && o.trimThreshold == 10 && o.trimColor == RGBAColor(hex: "ff0000"))
        o = try parse("/fq:webp:50:avif:40/mb:1000/f:webp/skp:gif/raw:1/fn:cat/att:1/exar:1:we/plain/\(Self.origin)").options
        #expect(o.formatQuality == [.webp: 50, .avif: 40] && o.maxBytes == 1000 && o.format == .webp && o.skipProcessing == [.gif])
        #expect(o.raw && o.filename == "cat" && o.returnAttachment && o.extendAspectRatio.enabled && o.extendAspectRatio.gravity.kind == .we)
        #expect(try parse("/fn:\(Self.base64("a cat.jpg")):1/plain/\(Self.origin)").options.filename == "a cat.jpg")
        #expect(try parse("/exp:\(Int(Date().timeIntervalSince1970) + 3600)/plain/\(Self.origin)").options.expires != nil)
    }

    @Test func defaultsAreImgproxys() throws {
        let o = try parse("/plain/\(Self.origin)").options
        #expect(o.resizingType == .fit && !o.enlarge && o.gravity.kind == .ce && o.dpr == 1 && o.autoRotate && o.stripMetadata == nil)
        #expect(o.zoomWidth == 1 && o.zoomHeight == 1 && !o.extend.enabled && o.quality == 0 && o.format == nil)
    }

    @Test func presetsApplyInOrderTheDefaultFirstAndLoopsStop() throws {
        var settings = ImgproxySettings()
        try settings.addPresets(["test1=resizing_type:fill", "test2=blur:0.2/quality:50", "default=rt:fill/blur:0.2/quality:50"])
        var o = try parse("/preset:test1:test2/plain/\(Self.origin)", settings).options
        #expect(o.resizingType == .fill && o.blur == 0.2 && o.quality == 50)
        o = try parse("/quality:70/plain/\(Self.origin)", settings).options
        #expect(o.resizingType == .fill && o.blur == 0.2 && o.quality == 70)
        var loop = ImgproxySettings()
        try loop.addPresets(["test1=resizing_type:fill/preset:test2", "test2=blur:0.2/preset:test1"])
        o = try parse("/pr:test1/plain/\(Self.origin)", loop).options
        #expect(o.resizingType == .fill && o.blur == 0.2)
        loop.onlyPresets = true
        #expect(try parse("/test1/plain/\(Self.origin)", loop).options.blur == 0.2)
    }

    /// Every refusal is imgproxy's: 404 with the body `Invalid URL`.
    @Test(arguments: [
        "/extend:1:sm/plain/\(origin)", "/extend:1:re/plain/\(origin)", "/gravity:re/plain/\(origin)", "/crop:100:200:re/plain/\(origin)",
        "/skp:jpg:png:bad/plain/\(origin)", "/exp:1/plain/\(origin)", "/unknown:1/plain/\(origin)", "/w:-1/plain/\(origin)",
        "/q:101/plain/\(origin)", "/rot:45/plain/\(origin)", "/pr:nope/plain/\(origin)", "/fit/100/100/ce/0/plain/\(origin)",
        "/plain/\(origin)@png@jpg", "/w:10/!!!", "/w:10/plain/", "/rs:fill:1:2:3:4:5:6:7:8/plain/\(origin)", "/g:fp:2:0/plain/\(origin)",
        "/bg:1:2/plain/\(origin)", "/f:doc/plain/\(origin)",
    ])
    func badPathsAreRefusedAsImgproxyRefusesThem(path: String) {
        #expect { try parse(path) } throws: { error in
            guard let error = error as? ProxyError else { return false }
            return error.status == 404 && error.publicText == "Invalid URL"
        }
    }

    @Test func allowedOptionsAndSecurityOptionsAreEnforced() throws {
        var settings = ImgproxySettings()
        settings.allowedProcessingOptions = ["w", "h"]
        #expect(throws: ProxyError.self) { try parse("/w:10/q:50/plain/\(Self.origin)", settings) }
        #expect(try parse("/w:10/h:5/plain/\(Self.origin)", settings).options.width == 10)
        #expect { try parse("/mrd:10/plain/\(Self.origin)") } throws: { ($0 as? ProxyError)?.status == 403 }
        settings.allowsSecurityOptions = true
        settings.allowedProcessingOptions = []
        #expect(try parse("/mrd:10/plain/\(Self.origin)", settings).options.maxResultDimension == 10)
    }

    /// The example of imgproxy's "Signing a URL" page: key `secret`, salt `hello`.
    @Test func theDocumentationsSigningExampleVerifies() throws {
        var settings = ImgproxySettings()
        settings.signers = [try #require(ProxySigner(keyHex: "736563726574", saltHex: "68656C6C6F"))]
        let rest = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        let parsed = try ImgproxyPath.parse("/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8" + rest, settings: settings)
        #expect(parsed.source.absoluteString == "http://example.com/images/curiosity.jpg")
        #expect(parsed.options.resizingType == .fill && parsed.options.width == 300 && parsed.options.gravity.kind == .sm && parsed.options.format == .png)
        #expect { try ImgproxyPath.parse("/pKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8" + rest, settings: settings) } throws: {
            ($0 as? ProxyError)?.status == 403 && ($0 as? ProxyError)?.publicText == "Forbidden"
        }
        settings.signatureSize = 8
        #expect(throws: Never.self) { try ImgproxyPath.parse("/oKfUtW34Dvo" + rest, settings: settings) }
        #expect { try ImgproxyPath.parse("/pKfUtW34Dvo" + rest, settings: settings) } throws: { ($0 as? ProxyError)?.status == 403 }
        #expect { try ImgproxyPath.parse("/oKfUtW34Dv" + rest, settings: settings) } throws: { ($0 as? ProxyError)?.status == 403 }
        settings.trustedSignatures = ["trusted"]
        #expect(throws: Never.self) { try ImgproxyPath.parse("/trusted" + rest, settings: settings) }
        // Without a key any signature passes, but one that looks like an option.
        #expect { try ImgproxyPath.parse("/rs:fill:1:1/plain/\(Self.origin)", settings: ImgproxySettings()) } throws: { ($0 as? ProxyError)?.status == 403 }
    }

    @Test func proxiesNormalisationsAreUndoneBeforeTheSignatureIsChecked() {
        #expect(ImgproxyPath.redenormalized("rs%3Afill%3A1%3A2/plain/http:/example.com/a.jpg") == "rs:fill:1:2/plain/http://example.com/a.jpg")
        #expect(ImgproxyPath.redenormalized("plain/local:/a.jpg") == "plain/local:///a.jpg")
    }

    @Test func theSizeLimitTableOfImgproxyHoldsInTheGeometry() throws {
        var settings = ImgproxySettings()
        settings.allowsSecurityOptions = true
        for (options, width, height) in ImgproxySizeTables.limits {
            var o = try parse("/\(options)/plain/\(Self.origin)", settings).options
            let quarter = o.rotate % 180 != 0
            o.rotate = 0
            let g = ImgproxyGeometry(width: quarter ? 100 : 200, height: quarter ? 200 : 100, options: o)
            let padW = ImgproxyGeometry.scaleToEven(o.padding.left, g.dprScale) + ImgproxyGeometry.scaleToEven(o.padding.right, g.dprScale)
            let padH = ImgproxyGeometry.scaleToEven(o.padding.top, g.dprScale) + ImgproxyGeometry.scaleToEven(o.padding.bottom, g.dprScale)
            var w = ImgproxyGeometry.minNonZero(g.scaledWidth, g.resultCropWidth), h = ImgproxyGeometry.minNonZero(g.scaledHeight, g.resultCropHeight)
            if o.extend.enabled { (w, h) = (max(w, g.targetWidth), max(h, g.targetHeight)) }
            if o.extendAspectRatio.enabled, g.aspectWidth > 0 { (w, h) = (max(w, g.aspectWidth), max(h, g.aspectHeight)) }
            #expect(w + padW == width && h + padH == height, "\(options): \(w + padW)x\(h + padH)")
        }
    }

    /// The planar JPEG path's single resize lands on the size the full pipeline gives.
    @Test func theEquivalentResizeGivesThePipelinesSize() throws {
        let image = try Image(width: 200, height: 100, pixelFormat: .rgb8, pixels: [UInt8](repeating: 90, count: 200 * 100 * 3))
        var used = 0
        for test in ImgproxySizeTables.all + [.init(type: "fill", modifier: nil, width: 300, height: 200, outWidth: 200, outHeight: 100)] {
            let transformer = ImgproxyTransformer(options: try parse("/\(test.options)/plain/\(Self.origin)").options)
            let full = try transformer.transform(image)
            #expect(full.width == test.outWidth && full.height == test.outHeight, "\(test)")
            guard let resize = transformer.equivalentResize(width: 200, height: 100) else { continue }
            used += 1
            let planar = try resize.transform(image)
            #expect(planar.width == full.width && planar.height == full.height, "\(test): \(resize.key)")
        }
        #expect(used > 20, "most plain resizes take the planar path")
    }
}
