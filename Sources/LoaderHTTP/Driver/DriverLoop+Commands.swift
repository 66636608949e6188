import Foundation
import ImageKernel

extension DriverLoop {
    func handle(_ command: DriverCommand) {
        switch command {
        case .attach(let spec, let token): attach(token, to: spec)
        case .detach(let id): detach(tokenID: id)
        case .reprioritize(let id, let priority): reprioritize(tokenID: id, to: priority)
        case .cancelAll(let reply):
            cancelEverything(.http(.cancelled, "cancelAllDownloads was called"))
            reply(status)
        case .status(let reply):
            reply(status)
        }
    }

    private var status: HTTPLoader.Status {
        HTTPLoader.Status(queuedTransfers: queue.count + hosts.parkedCount, runningTransfers: running.count, tokens: transferOfToken.count)
    }

    /// Joins the caller to an equal transfer in flight, or queues a new one.
    private func attach(_ token: LoadToken, to spec: TransferSpec) {
        guard !token.isCompleted else { return }  // its task was cancelled before the driver saw it
        if let transfer = joinable[spec] {
            let before = transfer.add(token)
            transferOfToken[token.id] = transfer
            if transfer.phase == .queued { queue.move(transfer, from: before, to: transfer.priority) }
            if !transfer.body.isEmpty {  // running, or queued to resume a cut body
                // A late joiner gets everything received so far as its first chunk.
                token.report(LoadProgress(
                    received: Int64(transfer.body.count), expected: transfer.expected,
                    chunk: token.wantsChunks && transfer.deliversChunks ? transfer.body.copy() : nil))
            }
            return
        }
        let transfer = Transfer(spec: spec, configuration: configuration, buffers: buffers)
        transfer.add(token)
        joinable[spec] = transfer
        transferOfToken[token.id] = transfer
        queue.push(transfer, priority: transfer.priority)
    }

    /// Moves a queued transfer when a caller's priority changes; a running one just remembers it.
    private func reprioritize(tokenID: UInt64, to priority: LoadToken.Priority) {
        guard let transfer = transferOfToken[tokenID] else { return }
        let before = transfer.setPriority(priority, ofToken: tokenID)
        if transfer.phase == .queued, before != transfer.priority {
            queue.move(transfer, from: before, to: transfer.priority)
        }
    }

    /// Drops a cancelled caller. The last caller leaving cancels the transfer: a queued one never
    /// starts, a running one is removed from curl, which closes its connection.
    private func detach(tokenID: UInt64) {
        guard let transfer = transferOfToken.removeValue(forKey: tokenID) else { return }
        let before = transfer.priority
        guard !transfer.removeToken(id: tokenID) else {
            if transfer.phase == .queued, before != transfer.priority { queue.move(transfer, from: before, to: transfer.priority) }
            return
        }
        switch transfer.phase {
        case .queued: if !queue.remove(transfer) { _ = hosts.unpark(transfer) }
        case .running: stop(transfer)
        case .finished: break
        }
        finish(transfer, .failure(.cancelled(.load, plugin: HTTPLoader.pluginName)))
    }

    func cancelEverything(_ error: ImageKernelError) {
        let queued = queue.removeAll() + hosts.removeAllParked()
        let active = Array(running.values)
        for transfer in active { stop(transfer) }
        for transfer in queued + active { finish(transfer, .failure(error)) }
    }
}
