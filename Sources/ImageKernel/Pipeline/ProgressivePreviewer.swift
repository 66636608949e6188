import Foundation

/// Feeds chunks to the first progressive coder that recognises the data and returns previews.
/// Chunks arrive in order from one loader; the lock only guards against loaders that call
/// progress from varying threads.
///
/// The final image is never a preview: each preview is handed out one chunk late, so the one the
/// last chunk completes is dropped, and a chunk known to be the last (the loader knows the total)
/// is not decoded at all — the manager's one full decode delivers the image.
final class ProgressivePreviewer: Sendable {
    private struct State: @unchecked Sendable {
        var buffered = Data()
        var decoder: (any ProgressiveImageDecoder)?
        var failed = false
        /// The preview of the latest chunk, handed out when the next chunk arrives.
        var pending: Image?
    }
    private let coders: [any ImageCoder]
    private let options: DecodeOptions
    private let state = Locked(State())
    /// Bytes needed before sniffing picks a coder.
    private static let sniffLength = 32

    init(coders: [any ImageCoder], options: DecodeOptions) {
        self.coders = coders
        var preview = options
        preview.thumbnailPixelSize = nil
        self.options = preview
    }

    /// Feeds a chunk; returns the preview of the chunk before it, if there is one.
    func append(_ chunk: Data, isLast: Bool) -> Image? {
        state.withLock { state -> Image? in
            let ready = state.pending
            state.pending = nil
            guard !isLast else { return ready }
            state.pending = preview(chunk, state: &state)
            return ready
        }
    }

    private func preview(_ chunk: Data, state: inout State) -> Image? {
        guard !state.failed else { return nil }
        if state.decoder == nil {
            state.buffered.append(chunk)
            guard state.buffered.count >= Self.sniffLength else { return nil }
            let progressive = coders.lazy.compactMap { $0 as? any ProgressiveImageCoder }
            guard let coder = progressive.first(where: { $0.canDecode(state.buffered) }) else {
                state.failed = true
                return nil
            }
            state.decoder = coder.makeProgressiveDecoder(options: options)
            let first = state.buffered
            state.buffered = Data()
            return feed(first, into: &state)
        }
        return feed(chunk, into: &state)
    }

    private func feed(_ chunk: Data, into state: inout State) -> Image? {
        do {
            return try state.decoder?.append(chunk)
        } catch {
            state.failed = true  // previews stop; the final decode reports the error
            return nil
        }
    }
}
