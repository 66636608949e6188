internal import CCurl
import ImageKernel

/// The locked queue of commands for the driver thread. Sending wakes the thread out of
/// `curl_multi_poll`. Once closed, sends are refused, so no wakeup can reach a multi handle that
/// the driver thread is about to clean up.
final class DriverInbox: Sendable {
    private let multi: MultiHandleAddress
    private let state = Locked(State())

    private struct State {
        var commands: [DriverCommand] = []
        var closed = false
    }

    init(multi: MultiHandleAddress) {
        self.multi = multi
    }

    /// Queues a command and wakes the driver. Returns false when the driver shut down.
    /// Only the first command into an empty inbox wakes the driver: it drains all of them at once.
    @discardableResult
    func send(_ command: DriverCommand) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.commands.append(command)
            if state.commands.count == 1 { _ = curl_multi_wakeup(multi.pointer) }
            return true
        }
    }

    /// Refuses further commands and wakes the driver so it can shut down.
    func close() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            _ = curl_multi_wakeup(multi.pointer)
        }
    }

    /// Takes the queued commands, and whether the inbox was closed.
    func drain() -> (commands: [DriverCommand], closed: Bool) {
        state.withLock { state in
            defer { state.commands.removeAll(keepingCapacity: true) }
            return (state.commands, state.closed)
        }
    }
}
