import CHiredis
import Foundation
import ImageKernel

/// One blocking hiredis connection, used by one caller at a time (its ``PoolWorker``'s current driver).
///
/// It connects on first use, authenticates and selects the database, and runs batches of
/// commands pipelined: every command is queued, written at once, then the replies are read in
/// order. Any I/O error or timeout closes the connection; the next batch connects again.
final class RedisConnection {
    private let endpoint: RedisCache.Endpoint
    private let timeoutMicroseconds: Int
    private var context: UnsafeMutablePointer<redisContext>?

    init(endpoint: RedisCache.Endpoint, timeout: Duration) {
        self.endpoint = endpoint
        let (seconds, attoseconds) = timeout.components
        self.timeoutMicroseconds = max(1, Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000))
    }

    deinit { close() }

    var isConnected: Bool { context != nil }

    func close() {
        chiredis_free(context)
        context = nil
    }

    /// Runs the commands pipelined; one reply per command, in order, or the error that ended the batch.
    func run(_ commands: [RedisCommand]) -> Result<[RedisReply], RedisFailure> {
        if context == nil, let failure = connect() { return .failure(failure) }
        guard let context else { return .failure(RedisFailure(.cannotConnect, "no connection")) }
        for command in commands where !append(command, to: context) {
            return .failure(closing(.connectionLost, "cannot queue a command"))
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            guard let reply = chiredis_next_reply(context) else { return .failure(closingWithContextError()) }
            replies.append(RedisReply(taking: reply))
        }
        return .success(replies)
    }

    private func connect() -> RedisFailure? {
        guard let fresh = chiredis_connect(endpoint.host, Int32(clamping: endpoint.port), timeoutMicroseconds) else {
            return RedisFailure(.cannotConnect, "hiredis could not allocate a connection")
        }
        context = fresh
        if chiredis_error(fresh) != 0 {
            let message = String(cString: chiredis_error_message(fresh))
            close()
            return RedisFailure(.cannotConnect, "cannot connect to \(endpoint): \(message)")
        }
        var handshake: [RedisCommand] = []
        if let password = endpoint.password {
            handshake.append(RedisCommand("AUTH", arguments: (endpoint.username.map { [Data($0.utf8)] } ?? []) + [Data(password.utf8)]))
        }
        if endpoint.database != 0 { handshake.append(RedisCommand("SELECT", Data(String(endpoint.database).utf8))) }
        guard !handshake.isEmpty else { return nil }
        switch run(handshake) {
        case .failure(let failure):
            return failure
        case .success(let replies):
            if let refusal = replies.first(where: { if case .error = $0 { true } else { false } }), case .error(let message) = refusal {
                close()
                return RedisFailure(.permissionDenied, "\(endpoint) refused AUTH or SELECT: \(message)")
            }
            return nil
        }
    }

    private func append(_ command: RedisCommand, to context: UnsafeMutablePointer<redisContext>) -> Bool {
        command.encoded().withUnsafeBytes { raw in
            chiredis_append_formatted(context, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count) == 0
        }
    }

    private func closingWithContextError() -> RedisFailure {
        guard let context else { return RedisFailure(.connectionLost, "no connection") }
        let message = String(cString: chiredis_error_message(context))
        let timedOut = chiredis_error_errno(context) == EAGAIN
        return closing(timedOut ? .timeout : .connectionLost, timedOut ? "no answer from \(endpoint) within the timeout" : "\(endpoint): \(message)")
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
