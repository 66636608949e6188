import Foundation

/// The Redis keys of one queue. Each partition's keys share a `{hash tag}` (`{NAME:P}`), so one
/// script touches one slot of a Redis Cluster; the partitions spread over the slots.
struct QueueKeys: Sendable {
    static let prefix = "imagekernel:queue:"
    let name: String

    /// Where the number of partitions is fixed by the first push.
    var meta: Data { Data("\(Self.prefix){\(name)}:meta".utf8) }

    func partition(_ index: Int) -> Partition { Partition(tag: "\(Self.prefix){\(name):\(index)}") }

    struct Partition: Sendable {
        let tag: String
        /// The stream of entries (`url` field); the consumer group reads it.
        var stream: Data { Data("\(tag):stream".utf8) }
        /// Counters: total, done, dead, loaded, already_stored, duplicates, failed_deliveries.
        var stats: Data { Data("\(tag):stats".utf8) }
        /// The last error of each entry still pending, by entry id.
        var errors: Data { Data("\(tag):errors".utf8) }
        /// The dead-letter stream (`url`, `error`, `deliveries`, `id`).
        var dead: Data { Data("\(tag):dead".utf8) }
    }

    /// Whether `name` can name a queue: letters, digits, `.`, `_` and `-` (no braces, which would
    /// change the hash tag), 1 to 100 characters.
    static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100 && name.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0)
        }
    }
}
