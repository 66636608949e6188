import Foundation
import ImageKernelTestSupport
import ImageKernel

/// nginx on 127.0.0.1 serving the fixtures the proxy tests load: images, a corrupt JPEG, text,
/// a large file, a gallery list, redirects inside and outside the allowed origin, an error
/// status and a slow file.
enum Origin {
    /// The repository's `Examples/images` (this file is `ImageProxy/Tests/ImageProxyTests/Support/Origin.swift`).
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/images")

    static func example(_ name: String) throws -> Data { try Data(contentsOf: examples.appendingPathComponent(name)) }

    /// The 24 sources of the gallery list: every format the coders read.
    static let galleryFiles: [String] = {
        var files = ["gradient-alpha.avif", "gradient-alpha.png", "gray.png", "photo-progressive.jpg", "photo.heic", "photo.jpg", "rotated-exif6.jpg"]
            .map { "examples/\($0)" }
        files += (1...8).map { "exif-orientation/recurser/Landscape_\($0).jpg" }
        files += (1...3).map { "exif-orientation/recurser/Portrait_\($0).jpg" }
        files += ["gif/pillow/hopper.gif", "gif/pillow/chi.gif", "webp/pillow/hopper.webp", "webp/pillow/flower.webp",
                  "exif-orientation/pillow/hopper_orientation_6.jpg", "exif-orientation/pillow/orientation_rectangle.jpg"]
        return files
    }()

    static func galleryName(_ index: Int, _ path: String) -> String { String(format: "g%02d-", index) + (path as NSString).lastPathComponent }

    static func start() throws -> NginxServer {
        var files: [String: Data] = [
            "photo.jpg": try example("photo.jpg"),
            "untagged.jpg": try example("photo.jpg"),
            "alpha.png": try example("gradient-alpha.png"),
            "photo.heic": try example("photo.heic"),
            "large.jpg": try TestData.data("exif-orientation/recurser/Landscape_0.jpg"),
            "slow.jpg": try TestData.data("exif-orientation/recurser/Landscape_0.jpg"),
            "notes.txt": Data("these are not the pixels you are looking for\n".utf8),
            "truncated.jpg": try example("photo.jpg").prefix(1500),
            "corrupt.png": try TestData.data("pngsuite/xcsn0g01.png"),  // bad data checksum
            "huge.bin": Data(count: 3 << 20),
            "scan.tif": try TestData.data("tiff/derived/hopper_lzw_tiled64.tif"),
            "paletted.bmp": try TestData.data("bmp/bmpsuite/g/pal8.bmp"),
            "favicon.ico": try TestData.data("ico/pillow/hopper.ico"),
        ]
        var list = "# the gallery test's 24 images\n"
        for (index, path) in galleryFiles.enumerated() {
            let name = galleryName(index, path)
            files[name] = path.hasPrefix("examples/") ? try example(String(path.dropFirst(9))) : try TestData.data(path)
        }
        // The list's URLs need the port, which nginx picks: the list is written after start.
        let server = try NginxServer(
            tls: false, files: files,
            locations: """
            location = /redirect-inside { return 302 /photo.jpg; }
            location = /redirect-outside { return 302 http://127.0.0.2:$server_port/photo.jpg; }
            location = /redirect-loop { return 302 /redirect-loop; }
            location = /error { return 500; }
            location = /slow.jpg { limit_rate 64; }
            location = /untagged.jpg { etag off; }
            """,
            addresses: ["127.0.0.1", "127.0.0.2"])
        for (index, path) in galleryFiles.enumerated() {
            list += server.url(galleryName(index, path)).absoluteString + "\n"
        }
        try Data(list.utf8).write(to: server.directory.appendingPathComponent("www/gallery.txt"))
        return server
    }

    /// How many requests for `path` nginx has answered.
    static func requests(_ server: NginxServer, path: String) -> Int {
        server.accessLog().filter { $0.hasPrefix(path + " ") }.count
    }
}

extension NginxServer {
    /// The origin prefix to allow.
    var prefix: String { "http://127.0.0.1:\(port)/" }
}
