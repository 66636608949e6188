internal import CCurl
import Foundation
import ImageKernel

/// Owns the driver thread: one thread running one curl multi handle for all of a loader's
/// transfers. Other threads talk to it only through its ``DriverInbox``.
final class CurlDriver: Sendable {
    private let inbox: DriverInbox
    private let stopped = DispatchSemaphore(value: 0)
    private let driverThread = ThreadMarker()

    init(configuration: HTTPLoader.Configuration) throws(ImageKernelError) {
        guard CurlRuntime.initialized, let multi = curl_multi_init() else {
            throw .http(.internalError, "libcurl could not be initialised")
        }
        _ = CCurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, configuration.allowsHTTP2 ? CCurl_pipe_multiplex() : 0)
        if configuration._limitsHostsInCurl, let perHost = configuration.maxConcurrentDownloadsPerHost {
            _ = CCurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, perHost)
        }
        let address = MultiHandleAddress(pointer: multi)
        let inbox = DriverInbox(multi: address)
        self.inbox = inbox
        let stopped = self.stopped, driverThread = self.driverThread
        let thread = Thread {
            driverThread.markCurrent()
            DriverLoop(multi: address, inbox: inbox, configuration: configuration, buffers: BufferPool()).run()
            stopped.signal()
        }
        thread.name = "LoaderHTTP.driver"
        thread.start()
    }

    /// Hands a command to the driver thread. Returns false when the driver shut down.
    @discardableResult
    func send(_ command: DriverCommand) -> Bool { inbox.send(command) }

    /// Stops the driver: every waiting caller fails with `cancelled`, handles are cleaned up.
    /// Waits for the thread to finish unless `wait` is false or this is the driver thread itself
    /// (a progress or modifier callback shutting its own loader down).
    func shutdown(wait: Bool) {
        inbox.close()
        guard wait else { return }
        guard !driverThread.isCurrent else { return }
        stopped.wait()
        stopped.signal()  // let any later shutdown() return at once
    }
}

/// Remembers one thread, to recognise calls made on it.
private final class ThreadMarker: Sendable {
    private let thread = Locked<pthread_t?>(nil)

    func markCurrent() { thread.withLock { $0 = pthread_self() } }

    var isCurrent: Bool {
        thread.withLock { marked in marked.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }
}
