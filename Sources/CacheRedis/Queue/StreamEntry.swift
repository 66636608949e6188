import Foundation

/// One stream entry as `XRANGE`, `XREADGROUP` and `XAUTOCLAIM` return it: `[id, [field, value, …]]`.
struct StreamEntry: Sendable {
    var id: String
    var fields: [String: String]

    /// The entries of a reply that is a list of `[id, fields]`; an entry whose fields are nil
    /// (deleted while pending) has none.
    static func list(_ reply: RedisReply) -> [StreamEntry] {
        guard case .array(let items) = reply else { return [] }
        return items.compactMap { item in
            guard case .array(let parts) = item, let id = parts.first?.text else { return nil }
            return StreamEntry(id: id, fields: parts.count > 1 ? parts[1].fieldMap : [:])
        }
    }
}

extension RedisReply {
    var integer: Int? {
        switch self {
        case .integer(let value): value
        case .string(let data): Int(String(decoding: data, as: UTF8.self))
        default: nil
        }
    }

    var text: String? {
        switch self {
        case .string(let data): String(decoding: data, as: UTF8.self)
        case .status(let text): text
        case .integer(let value): String(value)
        default: nil
        }
    }

    /// A flat `[field, value, …]` array (`HGETALL`, a stream entry's fields) as a dictionary.
    var fieldMap: [String: String] {
        guard case .array(let items) = self else { return [:] }
        var map: [String: String] = [:]
        var index = 0
        while index + 1 < items.count {
            if let field = items[index].text, let value = items[index + 1].text { map[field] = value }
            index += 2
        }
        return map
    }
}
