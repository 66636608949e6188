import CHiredis
import Foundation
import ImageKernel

/// One blocking hiredis connection with a write side and a read side that may run at once.
///
/// ``send(_:)`` puts encoded commands on the socket and ``readReply()`` takes the next reply off
/// it; one thread may send while another reads, which is what keeps a pipeline full. The owner
/// (a ``PoolWorker``) guarantees the rest: one sender at a time, one reader at a time, and
/// ``connect()`` and ``close()`` only while nobody sends or reads. Every network wait is bounded
/// by the timeout.
final class RedisConnection: @unchecked Sendable {
    // @unchecked: `context` changes only in connect() and close(), which the owner runs while no
    // other thread uses the connection; its locks order those calls with every send and read.
    private let endpoint: RedisCache.Endpoint
    private let timeoutMicroseconds: Int
    private let readOnly: Bool
    private var context: UnsafeMutablePointer<redisContext>?

    /// `readOnly`: send `READONLY` after connecting, so a cluster replica answers reads for its master's slots.
    init(endpoint: RedisCache.Endpoint, timeout: Duration, readOnly: Bool = false) {
        self.endpoint = endpoint
        self.readOnly = readOnly
        let (seconds, attoseconds) = timeout.components
        self.timeoutMicroseconds = max(1, Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000))
    }

    deinit { close() }

    func close() {
        chiredis_free(context)
        context = nil
    }

    /// Connects, authenticates and selects the database; nil when the connection is ready.
    func connect() -> RedisFailure? {
        close()
        guard let fresh = chiredis_connect(endpoint.host, Int32(clamping: endpoint.port), timeoutMicroseconds) else {
            return RedisFailure(.cannotConnect, "hiredis could not allocate a connection")
        }
        context = fresh
        if chiredis_error(fresh) != 0 {
            let message = String(cString: chiredis_error_message(fresh))
            close()
            return RedisFailure(.cannotConnect, "cannot connect to \(endpoint): \(message)")
        }
        return handshake()
    }

    /// Writes encoded commands. False when the socket would not take them; the socket is then
    /// shut down, so the reader fails every command in flight instead of reading a broken stream.
    func send(_ bytes: [UInt8]) -> Bool {
        guard let context else { return false }
        let status = bytes.withUnsafeBytes { chiredis_send(context, $0.baseAddress, $0.count) }
        if status != 0 { chiredis_shutdown(context) }
        return status == 0
    }

    /// The next reply on the wire, or the failure that ended the connection (then call ``close()``).
    func readReply() -> Result<RedisReply, RedisFailure> {
        guard let context else { return .failure(RedisFailure(.connectionLost, "no connection")) }
        var direct: UnsafeMutablePointer<CChar>?
        var length = 0
        if let reply = chiredis_read_reply(context, &direct, &length) { return .success(RedisReply(taking: reply)) }
        // A large bulk string (a hit) came in a buffer of its own: it becomes the Data as it is.
        guard let direct else { return .failure(contextFailure(context)) }
        return .success(.string(Data(bytesNoCopy: direct, count: length, deallocator: .free)))
    }

    /// AUTH, SELECT and READONLY when asked for, before the connection carries anything else.
    private func handshake() -> RedisFailure? {
        var commands: [RedisCommand] = []
        if let password = endpoint.password {
            commands.append(RedisCommand("AUTH", arguments: (endpoint.username.map { [Data($0.utf8)] } ?? []) + [Data(password.utf8)]))
        }
        if endpoint.database != 0 { commands.append(RedisCommand("SELECT", Data(String(endpoint.database).utf8))) }
        if readOnly { commands.append(RedisCommand("READONLY")) }
        guard !commands.isEmpty else { return nil }
        guard send(commands.flatMap { $0.encoded() }) else { return closing(.connectionLost, "\(endpoint) closed the connection during AUTH, SELECT or READONLY") }
        for _ in commands {
            switch readReply() {
            case .failure(let failure):
                close()
                return failure
            case .success(.error(let message)):
                close()
                return RedisFailure(.permissionDenied, "\(endpoint) refused AUTH, SELECT or READONLY: \(message)")
            case .success:
                continue
            }
        }
        return nil
    }

    private func contextFailure(_ context: UnsafeMutablePointer<redisContext>) -> RedisFailure {
        let message = String(cString: chiredis_error_message(context))
        let timedOut = chiredis_error_errno(context) == EAGAIN
        return RedisFailure(timedOut ? .timeout : .connectionLost, timedOut ? "no answer from \(endpoint) within the timeout" : "\(endpoint): \(message)")
    }

    private func closing(_ code: ImageKernelError.Code, _ message: String) -> RedisFailure {
        close()
        return RedisFailure(code, message)
    }
}

/// Why a batch failed: the connection, not the command (a command's own failure is a reply).
struct RedisFailure: Error, Sendable {
    var code: ImageKernelError.Code
    var message: String

    init(_ code: ImageKernelError.Code, _ message: String) {
        self.code = code
        self.message = message
    }

    func error() -> ImageKernelError {
        ImageKernelError(stage: .cache, plugin: RedisCache.pluginName, code: code, message: message)
    }
}
