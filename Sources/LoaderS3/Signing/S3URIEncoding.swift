import Foundation

/// Percent-encoding as SigV4 and S3 keys want it: every byte but `A–Z a–z 0–9 - . _ ~` is
/// encoded, upper-case hex; in a path, `/` stays.
enum S3URIEncoding {
    static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepSlash:
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` (a `+` stays a plus: S3 query values are not form-encoded).
    static func decodeQueryComponent(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}
