import ImageKernel

/// Work handed from callers' tasks to the driver thread.
enum DriverCommand: Sendable {
    /// A caller wants the transfer described by the spec.
    case attach(TransferSpec, LoadToken)
    /// A caller's task was cancelled; drop its token (and the transfer if it was the last).
    case detach(tokenID: UInt64)
    /// A caller's priority changed (the manager's shared work gained or lost a caller).
    case reprioritize(tokenID: UInt64, LoadToken.Priority)
    /// Fail every queued and running transfer with `cancelled`, then report the queue's state.
    case cancelAll(@Sendable (HTTPLoader.Status) -> Void)
    /// Report the queue's state.
    case status(@Sendable (HTTPLoader.Status) -> Void)
}

/// The curl multi handle's address, shared only so other threads can call `curl_multi_wakeup`
/// (which libcurl documents as callable from any thread). All other use stays on the driver thread.
struct MultiHandleAddress: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
