import CHiredis
import Foundation

/// One Redis reply, copied out of hiredis' reply object.
enum RedisReply: Sendable, Equatable {
    case string(Data)
    case status(String)
    case integer(Int)
    case null
    case array([RedisReply])
    /// An error reply (`-ERR ...`): the server answered, the command failed.
    case error(String)

    /// Takes ownership of a top-level reply: a bulk string keeps hiredis' buffer (no copy) and
    /// frees the reply when the `Data` goes; any other reply is copied and freed at once.
    init(taking reply: UnsafeMutablePointer<redisReply>) {
        guard reply.pointee.type == REDIS_REPLY_STRING, let str = reply.pointee.str, reply.pointee.len > 0 else {
            self.init(UnsafePointer(reply))
            chiredis_free_reply(reply)
            return
        }
        self = .string(Data(bytesNoCopy: str, count: Int(reply.pointee.len), deallocator: .custom { _, _ in chiredis_free_reply(reply) }))
    }

    init(_ reply: UnsafePointer<redisReply>) {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            self = .string(value.str.map { Data(bytes: $0, count: Int(value.len)) } ?? Data())
        case REDIS_REPLY_STATUS:
            self = .status(Self.text(value))
        case REDIS_REPLY_ERROR:
            self = .error(Self.text(value))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int(value.integer))
        case REDIS_REPLY_ARRAY:
            let elements = (0..<Int(value.elements)).compactMap { value.element?[$0].map { RedisReply(UnsafePointer($0)) } }
            self = .array(elements)
        default:
            self = .null
        }
    }

    private static func text(_ value: redisReply) -> String {
        guard let str = value.str else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: str, count: Int(value.len)), as: UTF8.self)
    }
}

/// One command: its arguments, binary-safe (a value or key is never parsed by Redis as syntax).
struct RedisCommand: Sendable {
    var arguments: [Data]

    init(_ name: String, _ arguments: Data...) {
        self.arguments = [Data(name.utf8)] + arguments
    }

    init(_ name: String, arguments: [Data]) {
        self.arguments = [Data(name.utf8)] + arguments
    }
}

extension RedisCommand {
    /// The command as the protocol sends it: `*argc`, then `$length` and the bytes of each
    /// argument, each part CRLF-terminated. Lengths frame the bytes, so nothing in an argument
    /// is read as syntax.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(arguments.reduce(16) { $0 + $1.count + 16 })
        Self.appendHeader(UInt8(ascii: "*"), arguments.count, to: &out)
        for argument in arguments {
            Self.appendHeader(UInt8(ascii: "$"), argument.count, to: &out)
            out.append(contentsOf: argument)
            out.append(contentsOf: [13, 10])
        }
        return out
    }

    private static func appendHeader(_ marker: UInt8, _ count: Int, to out: inout [UInt8]) {
        out.append(marker)
        out.append(contentsOf: String(count).utf8)
        out.append(contentsOf: [13, 10])
    }
}
