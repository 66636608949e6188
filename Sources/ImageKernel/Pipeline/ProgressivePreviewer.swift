import Foundation

/// Feeds chunks to the first progressive coder that recognises the data and returns previews.
/// Chunks arrive in order from one loader; the lock only guards against loaders that call
/// progress from varying threads.
final class ProgressivePreviewer: Sendable {
    private struct State: @unchecked Sendable {
        var buffered = Data()
        var decoder: (any ProgressiveImageDecoder)?
        var failed = false
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

    func append(_ chunk: Data) -> Image? {
        state.withLock { state -> Image? in
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
