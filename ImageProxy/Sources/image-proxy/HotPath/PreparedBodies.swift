import Foundation
import ImageKernel
import NIOCore

/// Response bodies as `ByteBuffer`s, made once per result and shared by every answer of it, so
/// an answer from memory sends the result's bytes without copying them.
///
/// A body is found by the answer's `ETag` (a strong validator: a digest of the source's identity,
/// the transform and the format, see `ImageProxyService.etag`), checked against its length. The
/// buffers take at most `limit` bytes beside the service's own result cache; past it they are all
/// dropped at once (each answer then copies its bytes once more, as before this existed).
final class PreparedBodies: Sendable {
    private let limit: Int
    private let state = Locked<(buffers: [String: ByteBuffer], bytes: Int)>(([:], 0))

    /// Bodies of at most `limit` bytes in all (0 keeps none).
    init(limit: Int) { self.limit = limit }

    /// The buffer holding `body`, the body of an answer whose entity tag is `etag`: the one made
    /// before for that tag, else a new copy (kept when it fits).
    func buffer(for body: Data, etag: String?) -> ByteBuffer {
        guard let etag, body.count <= limit else { return ByteBuffer(bytes: body) }
        if let known = state.withLock({ $0.buffers[etag] }), known.readableBytes == body.count { return known }
        let buffer = ByteBuffer(bytes: body)
        state.withLock { state in
            if state.bytes + body.count > limit {
                state.buffers.removeAll(keepingCapacity: true)
                state.bytes = 0
            }
            if let old = state.buffers.updateValue(buffer, forKey: etag) { state.bytes -= old.readableBytes }
            state.bytes += body.count
        }
        return buffer
    }

    /// Bytes held.
    var bytes: Int { state.withLock { $0.bytes } }
}
