import Foundation
import FuzzSupport
import ImageProxyCore

/// The image proxy's request surface before any network: the path parser (presets expanded,
/// output options read), the signature check, the origin policy and the local-source policy.
/// Any path either parses or gives a typed error with a 4xx status. A path that parses names an
/// http(s) or local source, its signed part is the path's tail, the path the service builds for
/// the same source and spec parses back to the same source, the policy either allows the source
/// or refuses it with a 403 (host names resolve through a fixed table, so the fuzzer never waits
/// on DNS), and a local source resolves to a real path under the root or is refused (403, 404).
let signer = ProxySigner(keyHex: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881", saltHex: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")!
let policy: OriginPolicy = {
    do {
        return try OriginPolicy(
            allowedPrefixes: ["http://127.0.0.1:8080/", "https://cdn.example.com/images/", "http://rebound.example.com/"],
            resolver: { host in host == "rebound.example.com" ? ["127.0.0.1"] : ["93.184.215.14"] })
    } catch {
        fatalError("the policy: \(error)")
    }
}()

let presets: ProxyPresets = {
    do {
        return try ProxyPresets(definitions: ["thumb=resize:fill:100:100/q:70", "card=preset:thumb/round:8/f:webp", "dl=attachment/fn:a%20b"])
    } catch {
        fatalError("the presets: \(error)")
    }
}()
let onlyPresets: ProxyPresets = {
    var only = presets
    only.onlyPresets = true
    return only
}()
/// A root with one file, and a file beside it that no local source may reach.
let local: LocalSourcePolicy = {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-proxy-path-\(getpid())")
    try? FileManager.default.createDirectory(at: base.appendingPathComponent("root/sub"), withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: base.appendingPathComponent("root/sub/a.jpg").path, contents: Data([0xFF, 0xD8]))
    _ = FileManager.default.createFile(atPath: base.appendingPathComponent("secret.jpg").path, contents: Data([0xFF, 0xD8]))
    try? FileManager.default.createSymbolicLink(atPath: base.appendingPathComponent("root/escape").path, withDestinationPath: "../secret.jpg")
    do {
        return try LocalSourcePolicy(root: base.appendingPathComponent("root").path)
    } catch {
        fatalError("the local root: \(error)")
    }
}()

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let path = String(decoding: fuzzInput(start, count), as: UTF8.self)
    do {
        // What presets-only accepts names a preset and is what the ordinary parse makes of it.
        let only = try ProxyRequest.parse(path: path, presets: onlyPresets)
        precondition(path.contains("preset:") || path.contains("pr:"), "presets-only accepted '\(path)' without a preset")
        precondition(only == (try? ProxyRequest.parse(path: path, presets: presets)), "presets-only parsed '\(path)' differently")
    } catch {
        precondition((400..<500).contains(error.status), "presets-only parse error with status \(error.status): \(error)")
    }
    let request: ProxyRequest
    do {
        request = try ProxyRequest.parse(path: path, presets: presets)
    } catch {
        precondition((400..<500).contains(error.status), "parse error with status \(error.status): \(error)")
        return 0
    }
    precondition(path.hasSuffix(request.signedPath), "the signed part '\(request.signedPath)' is not the tail of '\(path)'")
    precondition(["http", "https", "local"].contains(request.source.scheme?.lowercased() ?? ""), "source \(request.source)")
    if let quality = request.quality { precondition((1...100).contains(quality), "quality \(quality)") }
    if let maxBytes = request.output.maxBytes { precondition(maxBytes >= 1, "max_bytes \(maxBytes)") }
    if LocalSourcePolicy.isLocal(request.source) {
        do {
            let real = try local.resolve(request.source)
            precondition(real.hasPrefix(local.root! + "/") && !real.contains("secret"), "\(request.source) resolved to \(real), outside the root")
        } catch {
            precondition(error.status == 403 || error.status == 404, "local source error with status \(error.status): \(error)")
        }
        return 0
    }
    _ = signer.isValid(request.signature, for: request.signedPath)
    let signed = signer.signature(for: request.signedPath)
    precondition(signer.isValid(signed, for: request.signedPath), "a signature the signer made does not verify")
    do {
        try policy.check(request.source)
    } catch {
        precondition(error.status == 403, "policy error with status \(error.status)")
    }
    // The path a client builds for this source and steps parses back to the same request.
    let encoded = request.source.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    let rebuilt = "/unsafe" + (request.steps.isEmpty ? "" : "/" + request.specText) + "/plain/" + encoded
    if let again = try? ProxyRequest.parse(path: rebuilt) {
        precondition(again.source == request.source, "'\(rebuilt)' parses to \(again.source), not \(request.source)")
    }
    return 0
}

runFuzzer { fuzz($0, $1) }
