import Foundation

/// Reads an HTTP `Retry-After` value (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date in any
/// of the three forms a recipient must accept.
enum RetryAfter {
    /// The wait the value asks for, measured from `now`; zero for a date in the past, nil when the
    /// value is missing or unreadable.
    static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // More digits than an Int holds is still "a very long time".
            return .seconds(Int64(text) ?? Int64.max / 1_000_000_000_000)
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .milliseconds(Int64(seconds * 1000)) : .zero
    }

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`)
    /// and asctime (`Sun Nov  6 08:49:37 1994`), always GMT; month names in English.
    static func httpDate(_ text: String) -> Date? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let day: Int?, month: Int?, year: Int?, time: String
        switch words.count {
        case 6 where words[5] == "GMT":  // IMF-fixdate
            (day, month, year, time) = (Int(words[1]), months[words[2]], Int(words[3]), words[4])
        case 4 where words[3] == "GMT":  // RFC 850: 06-Nov-94, a two-digit year
            let date = words[1].split(separator: "-").map(String.init)
            guard date.count == 3, let short = Int(date[2]) else { return nil }
            (day, month, year, time) = (Int(date[0]), months[date[1]], short < 70 ? 2000 + short : 1900 + short, words[2])
        case 5:  // asctime
            (day, month, year, time) = (Int(words[2]), months[words[1]], Int(words[4]), words[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard let day, let month, let year, clock.count == 3, (1...31).contains(day), clock[0] < 24, clock[1] < 60, clock[2] < 61 else {
            return nil
        }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static let months = [
        "Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12,
    ]

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
