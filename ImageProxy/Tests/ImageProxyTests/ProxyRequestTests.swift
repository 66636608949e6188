import Digests
import Foundation
import ImageKernel
import ImageProxyCore
import Testing

@Suite("Request paths, signatures and the origin policy")
struct ProxyRequestTests {
    @Test func plainPathWithStepsOptionsAndFormatSuffix() throws {
        let request = try ProxyRequest.parse(path: "/unsafe/orient/resize:fill:300:200/q:70/round:12/plain/http%3A%2F%2Fcdn.example.com%2Fa%20b.jpg@webp")
        #expect(request.signature == "unsafe")
        #expect(request.signedPath == "/orient/resize:fill:300:200/q:70/round:12/plain/http%3A%2F%2Fcdn.example.com%2Fa%20b.jpg@webp")
        #expect(request.steps == ["orient", "resize:fill:300:200", "round:12"])
        #expect(request.quality == 70)
        #expect(request.format == .webp)
        #expect(request.source.absoluteString == "http://cdn.example.com/a%20b.jpg")
    }

    @Test func plainPathMayLeaveTheSourceUnencoded() throws {
        let request = try ProxyRequest.parse(path: "/unsafe/f:png/plain/https://cdn.example.com/dir/x.jpg?v=2")
        #expect(request.steps.isEmpty)
        #expect(request.format == .png)
        #expect(request.source.absoluteString == "https://cdn.example.com/dir/x.jpg?v=2")
    }

    @Test func base64SourceWithExtension() throws {
        let source = "https://cdn.example.com/images/cat.png"
        let encoded = Data(source.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let request = try ProxyRequest.parse(path: "/sig/resize:fit:64:64/\(encoded).avif")
        #expect(request.source.absoluteString == source)
        #expect(request.format == .avif)
        #expect(request.steps == ["resize:fit:64:64"])
    }

    /// The byte-level base64url and percent codecs agree with Foundation's at every length, and
    /// refuse what it refuses.
    @Test func base64URLAndPercentCodecsAgreeWithFoundation() throws {
        var bytes: [UInt8] = []
        for length in 0...70 {
            let data = Data(bytes)
            let foundation = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(ProxyRequest.base64URLEncoded(data) == foundation, "\(length) bytes")
            #expect(ProxyRequest.base64URLDecoded(Substring(foundation)) == data, "\(length) bytes")
            #expect(ProxyRequest.base64URLDecoded(Substring(foundation + String(repeating: "=", count: (4 - foundation.count % 4) % 4))) == data)
            bytes.append(UInt8(truncatingIfNeeded: length &* 97 &+ 251))
        }
        for bad in ["A", "AAAAA", "AB=C", "AB+C", "AB/C", "AB C", "é"] {
            #expect(ProxyRequest.base64URLDecoded(Substring(bad)) == nil, "\(bad)")
        }
        let source = "https://cdn.example.com/dir/a b/é.jpg?x=1&y=2"
        let encoded = try #require(source.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let request = try ProxyRequest.parse(path: "/unsafe/plain/\(encoded)")
        #expect(request.source.absoluteString == URL(string: try #require(encoded.removingPercentEncoding))?.absoluteString)
        for bad in ["http%3A%2F%2Fh%2F%zz", "http%3A%2F%2Fh%2F%4", "http%3A%2F%2Fh%2F%FF.jpg"] {
            #expect(bad.removingPercentEncoding == nil)
            #expect(throws: ProxyError.self, "\(bad)") { try ProxyRequest.parse(path: "/unsafe/plain/\(bad)") }
        }
    }

    @Test(arguments: [
        ("", 400), ("nosignature", 400), ("/unsafe", 400), ("/unsafe/plain/ftp%3A%2F%2Fhost%2Fx", 400),
        ("/unsafe/plain/not a url", 400), ("/unsafe/q:0/plain/http%3A%2F%2Fh%2Fx", 400), ("/unsafe/q:abc/plain/http%3A%2F%2Fh%2Fx", 400),
        ("/unsafe/f:tga/plain/http%3A%2F%2Fh%2Fx", 415), ("/unsafe/plain/http%3A%2F%2Fh%2Fx@tga", 415), ("/unsafe/!!!notbase64", 400),
    ])
    func malformedPathsAreTypedErrors(path: String, status: Int) {
        #expect(throws: ProxyError.self) { try ProxyRequest.parse(path: path) }
        do {
            _ = try ProxyRequest.parse(path: path)
        } catch {
            #expect(error.status == status, "\(path): \(error)")
        }
    }

    @Test func signatureIsImgproxysHMACOverSaltAndPath() throws {
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let signer = try #require(ProxySigner(keyHex: key, saltHex: salt))
        let path = "/el:t/f:png/g:no/h:300/rt:fit/w:300/plain/https://example.com/image.jpg"
        // The vector of imgproxy's JavaScript URL builder's tests (imgproxy's documented example key and salt).
        #expect(signer.signature(for: path) == "lGUqI4JvQjcBfombObcTQVe5wwsQtatggfrRKvi_pXg")
        // And independently of ProxySigner: HMAC-SHA256 over salt + path.
        var message = Data(hex: salt)
        message.append(Data(path.utf8))
        let mac = HMACSHA256.authenticationCode(for: message, key: Data(hex: key))
        let expected = ProxyRequest.base64URLEncoded(Data(mac))
        #expect(signer.signature(for: path) == expected)
        #expect(signer.isValid(expected, for: path))
        #expect(!signer.isValid(expected, for: path + "x"))
        #expect(!signer.isValid("unsafe", for: path))
        #expect(!signer.isValid(String(expected.dropLast()) + "A", for: path))
        #expect(ProxySigner(keyHex: "zz", saltHex: "00") == nil)
        #expect(ProxySigner(keyHex: "", saltHex: "00") == nil)
    }

    @Test func originPolicyMatchesByPartsNotByText() throws {
        let policy = try OriginPolicy(
            allowedPrefixes: ["https://cdn.example.com/images/", "http://127.0.0.1:8080/"], resolver: { _ in ["93.184.215.14"] })
        try policy.check(URL(string: "https://CDN.example.com/images/a.jpg")!)
        try policy.check(URL(string: "https://cdn.example.com:443/images/x/y.png")!)
        try policy.check(URL(string: "http://127.0.0.1:8080/anything.png")!)
        let refused = [
            "https://cdn.example.com/private/a.jpg",  // outside the path prefix
            "http://cdn.example.com/images/a.jpg",  // another scheme
            "https://cdn.example.com:8443/images/a.jpg",  // another port
            "https://cdn.example.com.evil.test/images/a.jpg",
            "https://cdn.example.com@evil.test/images/a.jpg",  // user info
            "https://cdn.example.com/images/../private/a.jpg",
            "https://cdn.example.com/images/%2e%2e/private/a.jpg",
            "http://127.0.0.1:8081/a.png",
            "http://127.0.0.2:8080/a.png",
            "http://[::1]:8080/a.png",
        ]
        for text in refused {
            #expect(throws: ProxyError.self, "\(text)") { try policy.check(URL(string: text)!) }
        }
    }

    @Test func theDotSegmentCheckIsFoundationsSplitAndCaseInsensitiveSearch() {
        // Every path of up to 5 characters from an alphabet of the bytes that matter, plus longer
        // ones built from their pieces, against the first version's Foundation formula.
        func reference(_ path: String) -> Bool {
            let lowered = path.lowercased()
            return path.split(separator: "/").contains { $0 == ".." || $0 == "." } || lowered.contains("%2e") || lowered.contains("%2f")
        }
        let alphabet: [String] = ["/", ".", "%", "2", "e", "F", "a"]
        var paths = [""]
        var frontier = [""]
        for _ in 0..<5 {
            frontier = frontier.flatMap { prefix in alphabet.map { prefix + $0 } }
            paths += frontier
        }
        paths += ["/images/../a.jpg", "/images/./a.jpg", "/a/..", "/a/.", "/..a/b.", "/a%2Eb", "/a%2fb", "/a%2", "/a%20b", "/%2", "/.../", "/a.b/c..d"]
        var mismatches: [String] = []
        for path in paths where OriginPolicy.hasDotSegmentOrEncodedDotOrSlash(path) != reference(path) { mismatches.append(path) }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10)) of \(paths.count)")
    }

    @Test func internalAddressesAreRefusedUnlessAPrefixNamesThem() throws {
        // A prefix that names a public address literal: internal addresses never match it anyway;
        // a host name that resolves to loopback is refused although its prefix is allowed.
        let names: [String: [String]] = [
            "rebound.example.com": ["93.184.215.14", "127.0.0.1"], "private.example.com": ["192.168.1.20"],
            "mapped.example.com": ["::ffff:10.0.0.1"], "public.example.com": ["93.184.215.14", "2606:2800:21f:cb07::1"],
        ]
        let policy = try OriginPolicy(
            allowedPrefixes: ["http://rebound.example.com/", "http://private.example.com/", "http://mapped.example.com/",
                              "http://public.example.com/", "http://unknown.example.com/", "http://8.8.8.8/", "http://10.1.2.3/"],
            resolver: { names[$0] ?? [] })
        for host in ["rebound", "private", "mapped"] {
            #expect(throws: ProxyError.self, "\(host)") { try policy.check(URL(string: "http://\(host).example.com/a.png")!) }
        }
        // The addresses checked are the ones the load is pinned to; literals need no pin.
        #expect(try policy.check(URL(string: "http://public.example.com/a.png")!)
            == ["public.example.com": ["93.184.215.14", "2606:2800:21f:cb07::1"]])
        #expect(try policy.check(URL(string: "http://8.8.8.8/a.png")!).isEmpty)
        #expect(try policy.check(URL(string: "http://10.1.2.3/a.png")!).isEmpty)  // named explicitly
        // A name that does not resolve is refused now, not left for the loader to resolve again.
        let unresolved = #expect(throws: ProxyError.self) { try policy.check(URL(string: "http://unknown.example.com/a.png")!) }
        #expect(unresolved?.status == 502)
        let loopbackAllowed = try OriginPolicy(allowedPrefixes: ["http://localhost:9/"])
        try loopbackAllowed.check(URL(string: "http://localhost:9/a.png")!)
    }
}

extension Data {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}
