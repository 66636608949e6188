/// A Swift closure behind one of the C glue's row callbacks (`void (*)(void *context, size_t
/// rows)`): the context is the box, passed unretained, so the caller keeps it alive for the call.
final class RowsCallback {
    let body: (Int) -> Void

    init(_ body: @escaping (Int) -> Void) { self.body = body }

    static let thunk: @convention(c) (UnsafeMutableRawPointer?, Int) -> Void = { context, rows in
        guard let context else { return }
        Unmanaged<RowsCallback>.fromOpaque(context).takeUnretainedValue().body(rows)
    }
}
