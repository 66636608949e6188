#if canImport(Glibc)
import Glibc
#endif

/// The `Date` header's text (RFC 9110's IMF-fixdate, as Hummingbird writes it:
/// `Sun, 06 Nov 1994 08:49:37 GMT`), formatted at most once a second per value.
struct HTTPDateText {
    private var second = -1
    private var text = ""

    /// The current time's text.
    mutating func now() -> String {
        let current = time(nil)
        if current != second {
            second = current
            text = Self.format(current)
        }
        return text
    }

    /// `seconds` since the epoch as IMF-fixdate (the C locale's day and month names, which are
    /// the English ones the format asks for; the process never calls `setlocale`).
    static func format(_ seconds: Int) -> String {
        var value = time_t(seconds)
        var utc = tm()
        guard gmtime_r(&value, &utc) != nil else { return "" }
        var buffer = [CChar](repeating: 0, count: 40)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &utc)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
