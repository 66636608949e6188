import Foundation
import FuzzSupport
import ImageProxyCore

/// The image proxy's request surface before any network: the path parser, the signature check
/// and the origin policy. Any path either parses or gives a typed error with a 4xx status. A path
/// that parses names an http(s) source, its signed part is the path's tail, the path the service
/// builds for the same source and spec parses back to the same source, and the policy either
/// allows the source or refuses it with a 403 (host names resolve through a fixed table, so the
/// fuzzer never waits on DNS).
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

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let path = String(decoding: fuzzInput(start, count), as: UTF8.self)
    let request: ProxyRequest
    do {
        request = try ProxyRequest.parse(path: path)
    } catch {
        precondition((400..<500).contains(error.status), "parse error with status \(error.status): \(error)")
        return 0
    }
    precondition(path.hasSuffix(request.signedPath), "the signed part '\(request.signedPath)' is not the tail of '\(path)'")
    precondition(["http", "https"].contains(request.source.scheme?.lowercased() ?? ""), "source \(request.source)")
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
