import Digests
import Foundation

/// Builds proxy paths the way a client library would, independently of the service's code.
enum Paths {
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `/{signature}/{spec}/plain/{percent-encoded source}[@format]`, signed with key and salt (hex) or `unsafe`.
    static func plain(_ source: URL, spec: String = "", format: String? = nil, key: String? = nil, salt: String? = nil) -> String {
        var rest = spec.isEmpty ? "" : "/\(spec)"
        rest += "/plain/" + source.absoluteString.addingPercentEncoding(withAllowedCharacters: unreserved)!
        if let format { rest += "@\(format)" }
        return "/" + sign(rest, key: key, salt: salt) + rest
    }

    /// `/{signature}/{spec}/{base64url source}[.ext]`.
    static func encoded(_ source: URL, spec: String = "", ext: String? = nil, key: String? = nil, salt: String? = nil) -> String {
        let base64 = Data(source.absoluteString.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        var rest = (spec.isEmpty ? "" : "/\(spec)") + "/" + base64
        if let ext { rest += ".\(ext)" }
        return "/" + sign(rest, key: key, salt: salt) + rest
    }

    static func sign(_ rest: String, key: String?, salt: String?) -> String {
        guard let key, let salt else { return "unsafe" }
        var message = Data(hex: salt)
        message.append(Data(rest.utf8))
        let mac = HMACSHA256.authenticationCode(for: message, key: Data(hex: key))
        return Data(mac).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
