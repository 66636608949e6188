@testable import CacheDisk
import Foundation
import Testing

/// SDWebImage's file-naming cases, re-expressed, plus the guarantees that names never carry key text.
@Suite struct NamingTests {
    let directory = TemporaryDirectory()

    func cache(_ naming: DiskCache.FileNaming = .sha256) -> DiskCache {
        DiskCache(configuration: .init(directory: directory.url, fileNaming: naming))
    }

    func fileName(_ key: String, _ naming: DiskCache.FileNaming = .sha256) -> String {
        URL(fileURLWithPath: cache(naming).path(forKey: key)).lastPathComponent
    }

    @Test func nameIsTheSHA256OfTheKeyPlusItsExtension() {
        #expect(fileName("https://example.com/a/b/photo.jpg")
            == "b1bbf89f8be4506cc3fdcbd17aaa05404c5247d7a6a48ab699a9b5a351b74852.jpg")
    }

    @Test func md5NamingMatchesSDWebImagesNames() {
        #expect(fileName("https://example.com/a/b/photo.jpg", .md5) == "0e0a790f6100de2adf794512fe04acf7.jpg")
        #expect(fileName("", .md5) == "d41d8cd98f00b204e9800998ecf8427e")
    }

    @Test func jpgExtensionIsKept() {
        #expect(fileName("https://example.com/photo.jpg").hasSuffix(".jpg"))
        // SDWebImage test36: the query is long and full of dots and slashes; the path says .jpg.
        let key = "https://imggen.alicdn.com/3b11cea896a9438329d85abfb07b30a8.jpg?aid=tanx&tid=1166&m=%7B%22img_url%22%3A%22https%3A%2F%2Fgma.alicdn.com%2Fbao%2Fuploaded%2Fi4%2F1695306010722305097%2FTB2S2KjkHtlpuFjSspoXXbcDpXa_%21%210-saturn_solar.jpg_sum.jpg%22%7D&size=640x246"
        #expect(URL(fileURLWithPath: fileName(key)).pathExtension == "jpg")
    }

    @Test func dotsInTheQueryGiveNoExtension() {
        let key = "https://maps.googleapis.com/maps/api/staticmap?center=48.8566,2.3522&format=png&maptype=roadmap&scale=2&size=375x200&zoom=15"
        #expect(!fileName(key).contains("."))
        // Not a parseable URL (a space): the text after '?' still never gives the extension.
        #expect(!fileName("not a url/staticmap?format=x.png").contains("."))
        #expect(fileName("not a url/photo.gif?v=1.2").hasSuffix(".gif"))
        #expect(!fileName("https://example.com/path#fragment.png").contains("."))
        // Nor does the host.
        #expect(!fileName("https://example.com").contains("."))
        #expect(!fileName("https://user:pass.word@cdn.example.com:8080?f=a.png").contains("."))
        #expect(fileName("//cdn.example.com/a/b.webp").hasSuffix(".webp"))
        #expect(fileName("s3+https://bucket.example/key/photo.avif/").hasSuffix(".avif"))
        #expect(fileName("https://example.com/%E5%9B%BE.%6A%70%67").hasSuffix(".jpg"))
    }

    @Test func overLongExtensionIsDropped() {
        // SDWebImage test37.
        let key = "https://imggen.alicdn.com/3b11cea896a9438329d85abfb07b30a8.jpg" + String(repeating: "a", count: 300)
        #expect(!fileName(key).contains("."))
        // The limit is what fits in NAME_MAX beside 64 hex digits and the dot: 190 bytes.
        let kept = fileName("https://example.com/x." + String(repeating: "e", count: 190))
        #expect(kept.utf8.count == 255)
        #expect(!fileName("https://example.com/x." + String(repeating: "e", count: 191)).contains("."))
        // Measured in bytes, not characters: 100 two-byte characters are 200 bytes.
        #expect(!fileName("photo." + String(repeating: "é", count: 100)).contains("."))
    }

    @Test func nulAndColonAreStrippedFromTheExtension() {
        #expect(fileName("https://example.com/image.pn\u{0}g").hasSuffix(".png"))
        #expect(fileName("https://example.com/image.pn%00g").hasSuffix(".png"))
        #expect(fileName("https://example.com/image.p:n:g").hasSuffix(".png"))
        #expect(fileName("photos/image.p:n:g").hasSuffix(".png"))
        #expect(fileName("image.pn\ng").hasSuffix(".png"))
    }

    @Test func nulInTheKeyIsHashedLikeAnyOtherByte() {
        // SDWebImage hashes up to the first NUL, so these two would share a file there.
        #expect(fileName("a\u{0}b") == "59b271ae1bbcb1d31d41929817f4b16fb439eb4f31520b5ad1d5ce98920a7138")
        #expect(fileName("a\u{0}b") != fileName("a\u{0}c"))
    }

    @Test(arguments: [
        "", "..", "../../etc/passwd", "/etc/passwd", "a/../../../x.png", "~root/.ssh/id_rsa",
        "file:///etc/shadow", "..%2F..%2Fescape.png", "line\nbreak.jpg", String(repeating: "k", count: 10_000),
    ])
    func noKeyEscapesTheDirectory(key: String) async throws {
        let cache = cache()
        let path = cache.path(forKey: key)
        #expect(URL(fileURLWithPath: path).deletingLastPathComponent().path == directory.url.path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        let digest = name.prefix(64)
        #expect(digest.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(name.utf8.count <= 255)
        try cache.storeData(Data("value".utf8), forKey: key)
        #expect(Disk.entryNames(directory.url) == [name])
        #expect(cache.data(forKey: key) == Data("value".utf8))
    }

    @Test func emptyKeyIsAValidKey() throws {
        let cache = cache()
        #expect(fileName("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(cache.data(forKey: "") == nil)
        #expect(!cache.containsData(forKey: ""))
        try cache.storeData(Data([1, 2, 3]), forKey: "")
        #expect(cache.data(forKey: "") == Data([1, 2, 3]))
        #expect(cache.containsData(forKey: ""))
    }

    @Test func readsFallBackToTheNameWithoutExtension() throws {
        let cache = cache()
        let key = "https://example.com/legacy.png"
        let bare = EntryNaming(naming: .sha256).hexDigest(of: key)
        try Data("legacy bytes".utf8).write(to: directory.url.appendingPathComponent(bare))
        #expect(cache.data(forKey: key) == Data("legacy bytes".utf8))
        #expect(cache.containsData(forKey: key))
        try cache.removeData(forKey: key)
        #expect(Disk.entryNames(directory.url).isEmpty)
    }

    @Test func aCacheThatReadsNoLegacyNamesIgnoresTheNameWithoutExtension() throws {
        var configuration = DiskCache.Configuration(directory: directory.url)
        configuration.readsNamesWithoutExtension = false
        let cache = DiskCache(configuration: configuration)
        let key = "https://example.com/legacy.png"
        let bare = EntryNaming(naming: .sha256).hexDigest(of: key)
        try Data("legacy bytes".utf8).write(to: directory.url.appendingPathComponent(bare))
        #expect(cache.data(forKey: key) == nil)
        #expect(!cache.containsData(forKey: key))
        try cache.storeData(Data("new bytes".utf8), forKey: key)
        #expect(cache.data(forKey: key) == Data("new bytes".utf8))
        // Removing a key still removes both names.
        try cache.removeData(forKey: key)
        #expect(Disk.entryNames(directory.url).isEmpty)
    }

}
