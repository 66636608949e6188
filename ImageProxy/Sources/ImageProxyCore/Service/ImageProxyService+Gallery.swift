import Foundation
import LoaderHTTP
import ImageKernel

extension ImageProxyService {
    /// Longest list the gallery reads, in bytes, and most images it shows.
    static let galleryListLimit = 1 << 20
    static let galleryImageLimit = 1000

    /// `GET /gallery?list=URL`: an HTML page showing every source of the list (one URL per line,
    /// `#` comments and blank lines skipped; the list itself from an allowed origin) through the
    /// proxy as 200x200 fills, and a row of the list's first source through each of the steps in
    /// ``galleryStepSpecs`` (the `watermark` one when the service has a watermark). Its script
    /// sets `document.title` to `loaded N/M failed F` once every image has loaded or failed.
    public func gallery(list: String?) async -> ProxyResponse {
        do throws(ProxyError) {
            guard let list, let url = URL(string: list), url.scheme != nil else {
                throw ProxyError.invalidPath("gallery needs ?list= an absolute http(s) URL of a list of image URLs")
            }
            let pins = try policy.check(url)
            var context = ImageContext()
            if !pins.isEmpty { context[HTTPLoader.PinnedAddresses.self] = pins }
            let data = try await Self.withDeadline(configuration.sourceTimeout, what: list) { [loader, context] () async throws(ProxyError) -> Data in
                do throws(ImageKernelError) {
                    return try await loader.load(ImageRequest(url: url), options: [], context: context, progress: { _ in }).data
                } catch {
                    throw ProxyError(error)
                }
            }
            guard data.count <= Self.galleryListLimit else { throw ProxyError.tooLarge("the list is larger than \(Self.galleryListLimit) bytes") }
            let sources = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
                .prefix(Self.galleryImageLimit)
            let body = Data(galleryHTML(list: list, sources: Array(sources)).utf8)
            return ProxyResponse(
                status: 200,
                headers: [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", "\(body.count)"), ("Cache-Control", "no-store")],
                body: body)
        } catch {
            return .error(error)
        }
    }

    /// The gallery's row of steps: each a 200x200 result of the first source.
    static let galleryStepSpecs = [
        "resize:fill:200:200:smart", "resize:fill:200:200:fp:0.25:0.75", "resize:fit:160:160/pad:20:20:20:20:3366ccff",
        "resize:fit:200:120/extend:200:200:centre:ffcc00ff", "resize:fill:200:200/background:ffcc00", "trim/resize:fill:200:200",
        "dpr:2/resize:fill:100:100",
    ]
    static let galleryWatermarkSpec = "resize:fill:200:200/watermark:0.7:soea:0.4"

    /// The same row in imgproxy's grammar, for a service in `--compat imgproxy`.
    static let galleryImgproxySpecs = [
        "rs:fill:200:200/g:sm", "rs:fill:200:200/g:fp:0.25:0.75", "rs:fit:160:160/pd:20/bg:3366cc",
        "rs:fit:200:120/ex:1/bg:ffcc00", "rs:fill:200:200/bg:ffcc00", "t:10/rs:fill:200:200", "dpr:2/rs:fill:100:100",
    ]
    static let galleryImgproxyWatermarkSpec = "rs:fill:200:200/wm:0.7:soea:0:0:0.4"

    /// An imgproxy path for a source and options (`/{signature}/{options}/plain/{source}`), signed
    /// as ``ImgproxySettings`` verifies it: the first signer's HMAC cut to the signature size, or
    /// `unsafe` without signers.
    public func imgproxyPath(forSourceText source: String, options: String, settings: ImgproxySettings) -> String {
        let encoded = source.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? ""
        let rest = (options.isEmpty ? "" : "/" + options) + "/plain/" + encoded
        let signature = settings.signers.first?.signature(for: rest, size: settings.signatureSize) ?? "unsafe"
        return "/" + signature + rest
    }

    func galleryHTML(list: String, sources: [String]) -> String {
        let compat = configuration.compat
        func figure(_ source: String, spec: String, caption: String) -> String {
            let src = compat.map { imgproxyPath(forSourceText: source, options: spec, settings: $0) } ?? path(forSourceText: source, spec: spec)
            return #"<figure><img src="\#(Self.escape(src))" width="200" height="200" alt="\#(Self.escape(caption))"><figcaption>\#(Self.escape(caption))</figcaption></figure>"#
        }
        let images = sources.map { figure($0, spec: compat == nil ? "resize:fill:200:200" : "rs:fill:200:200", caption: $0) }
        let stepSpecs = compat == nil ? Self.galleryStepSpecs : Self.galleryImgproxySpecs
        let markSpec = compat == nil ? Self.galleryWatermarkSpec : Self.galleryImgproxyWatermarkSpec
        let specs = stepSpecs + (watermark.withLock { $0 } == nil ? [] : [markSpec])
        let steps = sources.first.map { first in specs.map { figure(first, spec: $0, caption: $0) } } ?? []
        let imageCount = images.count + steps.count
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>loading 0/\(imageCount)</title>
        <style>
        body { font: 14px system-ui, sans-serif; margin: 16px; background: #fafafa; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, 200px); gap: 12px; }
        h2 { font-size: 15px; margin: 24px 0 8px; }
        figure { margin: 0; } img { display: block; background: #ddd; }
        img.failed { outline: 3px solid #c00; }
        figcaption { width: 200px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; color: #555; font-size: 11px; }
        </style></head>
        <body><h1>\(sources.count) images from \(Self.escape(list))</h1>
        <div id="grid" class="grid">
        \(images.joined(separator: "\n"))
        </div>
        <h2>steps, on the first image</h2>
        <div id="steps" class="grid">
        \(steps.joined(separator: "\n"))
        </div>
        <script>
        (function () {
          const images = Array.from(document.querySelectorAll('.grid img'));
          const total = images.length;
          let loaded = 0, failed = 0;
          function settle(image, ok) {
            if (image.dataset.settled) return;
            image.dataset.settled = '1';
            if (ok) { loaded++; } else { failed++; image.classList.add('failed'); }
            document.title = (loaded + failed === total ? 'loaded ' : 'loading ') + loaded + '/' + total + (loaded + failed === total ? ' failed ' + failed : '');
          }
          images.forEach(function (image) {
            if (image.complete) { settle(image, image.naturalWidth > 0); return; }
            image.addEventListener('load', function () { settle(image, image.naturalWidth > 0); });
            image.addEventListener('error', function () { settle(image, false); });
          });
          if (total === 0) document.title = 'loaded 0/0 failed 0';
        })();
        </script>
        </body></html>
        """
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
