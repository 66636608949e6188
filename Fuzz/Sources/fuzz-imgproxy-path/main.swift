import Foundation
import FuzzSupport
import ImageKernel
import ImageProxyCore

/// `image-proxy --compat imgproxy`'s request surface before any network: imgproxy's path grammar
/// (plain and base64 sources, every option, presets, security options), its size arithmetic and
/// its processing on a small image. Any path either parses or gives a typed error with a 4xx
/// status; the geometry of any parsed path, for any source size, is computed without a trap; and
/// where the sizes are small the transform gives an image or a typed error.
let settings: ImgproxySettings = {
    var settings = ImgproxySettings()
    settings.allowsSecurityOptions = true
    do {
        try settings.addPresets(["thumb=rs:fill:100:100/q:70", "card=pr:thumb/pd:4/f:webp", "default=q:80"])
    } catch {
        fatalError("the presets: \(error)")
    }
    return settings
}()
let sample: Image = {
    var pixels = [UInt8](repeating: 0, count: 9 * 7 * 4)
    for i in 0..<(9 * 7) { pixels[i * 4] = UInt8(i * 3 & 255); pixels[i * 4 + 1] = UInt8(i * 7 & 255); pixels[i * 4 + 3] = UInt8(255 - i) }
    do {
        return try Image(width: 9, height: 7, pixelFormat: .rgba8, pixels: pixels)
    } catch {
        fatalError("the sample: \(error)")
    }
}()
let sourceSizes = [(1, 1), (9, 7), (7, 9), (400, 300), (65535, 1), (1, 65535), (1 << 20, 1 << 20)]

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let path = String(decoding: fuzzInput(start, count), as: UTF8.self)
    let parsed: ImgproxyPath
    do {
        parsed = try ImgproxyPath.parse(path, settings: settings)
    } catch {
        precondition((400..<500).contains(error.status), "parse error with status \(error.status): \(error)")
        return 0
    }
    let options = parsed.options
    for (width, height) in sourceSizes {
        for isVector in [false, true] { _ = ImgproxyGeometry(width: width, height: height, options: options, isVector: isVector) }
    }
    let transformer = ImgproxyTransformer(options: options)
    _ = transformer.equivalentResize(width: 400, height: 300)
    // Render only what stays small (a fuzzer must not spend its time on large allocations; the
    // transformers' own limits refuse what is large).
    let g = ImgproxyGeometry(width: sample.width, height: sample.height, options: options)
    let padding = options.padding.top + options.padding.right + options.padding.bottom + options.padding.left
    let sides = [g.targetWidth, g.targetHeight, g.scaledWidth, g.scaledHeight, g.aspectWidth, g.aspectHeight]
    guard sides.allSatisfy({ abs($0) <= 64 }), (0...64).contains(padding), options.pixelate <= 64 else { return 0 }
    do {
        let image = try transformer.transform(sample)
        precondition(image.width > 0 && image.height > 0 && image.isConsistent, "the transform gave \(image.width)x\(image.height)")
    } catch {
        _ = error.code  // a typed error
    }
    return 0
}

runFuzzer { fuzz($0, $1) }
