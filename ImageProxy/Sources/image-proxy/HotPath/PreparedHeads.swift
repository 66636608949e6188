import HTTPTypes
import ImageKernel
import ImageProxyCore
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// A response head as the bytes NIO's encoder writes for it, with a `Date` field last whose value
/// each answer writes over (IMF-fixdate is always 29 bytes).
struct PreparedHead: Sendable {
    /// The status line, every field and the blank line.
    let bytes: ByteBuffer
    /// Where the `Date` value starts in ``bytes``.
    let dateOffset: Int

    /// IMF-fixdate's length: `Sun, 06 Nov 1994 08:49:37 GMT`.
    static let dateLength = 29
    private static let placeholder = "Thu, 01 Jan 1970 00:00:00 GMT"

    /// `response` with a `Date` field added last (where Hummingbird adds it), encoded by the
    /// handlers that encode the router's answers (`HTTP1ToHTTPServerCodec`, then
    /// `HTTPResponseEncoder`), so the bytes are theirs by construction. Nil if the encoder left the
    /// `Date` value anywhere but just before the blank line.
    init?(_ response: HTTPResponse) {
        var response = response
        guard response.headerFields[.date] == nil else { return nil }
        response.headerFields[.date] = Self.placeholder
        let channel = EmbeddedChannel(handlers: [HTTPResponseEncoder(configuration: .init()), HTTP1ToHTTPServerCodec(secure: false)])
        defer { _ = try? channel.finish() }
        guard (try? channel.writeOutbound(HTTPResponsePart.head(response))) != nil,
            case .byteBuffer(let encoded)? = try? channel.readOutbound(as: IOData.self),
            (try? channel.readOutbound(as: IOData.self)) == nil
        else { return nil }
        let suffix = Self.placeholder + "\r\n\r\n"
        let offset = encoded.readableBytes - suffix.utf8.count
        guard offset > 0, encoded.getString(at: encoded.readerIndex + offset, length: suffix.utf8.count) == suffix else { return nil }
        bytes = ByteBuffer(bytes: encoded.readableBytesView)
        dateOffset = offset
    }

    /// The head with `date` (29 bytes of IMF-fixdate) as its `Date`: one copy of the prepared bytes.
    func with(date: String) -> ByteBuffer {
        var head = bytes
        head.setString(date, at: head.readerIndex + dateOffset)
        return head
    }
}

/// Response heads prepared once per answer of a result (``PreparedHead``): the hot path's answers
/// then copy bytes instead of building, converting and encoding header fields per request.
///
/// A head is found by the answer's entity tag, status and method, and used only when the answer's
/// fields are the ones it was made from (a route may add `Vary` or `Content-Disposition` to the
/// same result); otherwise it is made again. At most `limit` heads are kept; past it they are all
/// dropped at once.
final class PreparedHeads: Sendable {
    private struct Key: Hashable {
        let etag: String
        let status: Int
        let isHead: Bool
    }

    private struct Entry {
        let fields: [(name: String, value: String)]
        let head: PreparedHead
    }

    private let limit: Int
    private let state = Locked<[Key: Entry]>([:])

    init(limit: Int = 4096) { self.limit = limit }

    /// The prepared head of `answer` (sent for a HEAD request when `isHead`), made by `make` the
    /// first time; nil when the answer has no `ETag` or its head cannot be prepared.
    func head(for answer: ProxyResponse, isHead: Bool, make: () -> HTTPResponse) -> PreparedHead? {
        guard let etag = answer.headers.first(where: { $0.name == "ETag" })?.value else { return nil }
        let key = Key(etag: etag, status: answer.status, isHead: isHead)
        if let entry = state.withLock({ $0[key] }), Self.same(entry.fields, answer.headers) { return entry.head }
        guard let head = PreparedHead(make()) else { return nil }
        state.withLock { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(fields: answer.headers, head: head)
        }
        return head
    }

    /// Heads held.
    var count: Int { state.withLock { $0.count } }

    private static func same(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
