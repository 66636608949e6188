import Foundation

/// The ordered list of coders. The most recently registered coder is asked first, so a user's
/// coder overrides a built-in one. Safe to use from any thread; coder code is never called while
/// the registry's lock is held.
public final class CoderRegistry: Sendable {
    private let list = PluginList<any ImageCoder>()

    /// An empty registry.
    public init() {}

    /// A registry holding these coders; the last one is asked first.
    public convenience init(_ coders: [any ImageCoder]) {
        self.init()
        for coder in coders { register(coder) }
    }

    /// Adds a coder in front of the others. Keep the token to unregister it.
    @discardableResult
    public func register(_ coder: any ImageCoder) -> RegistrationToken { list.add(coder) }

    /// Removes the coder the token names. Returns false if it was already removed.
    @discardableResult
    public func unregister(_ token: RegistrationToken) -> Bool { list.remove(token) }

    /// The registered coders, newest first.
    public var coders: [any ImageCoder] { list.snapshot }

    /// The first coder (newest first) that can decode the bytes.
    public func coder(forDecoding data: Data) -> (any ImageCoder)? {
        coders.first { $0.canDecode(data) }
    }

    /// The first coder (newest first) that can encode the format.
    public func coder(forEncoding format: ImageFormat) -> (any ImageCoder)? {
        coders.first { $0.canEncode(format) }
    }

    /// Decodes with the first coder that can, or throws ``ImageKernelError/Code/noCoder``.
    public func decode(_ data: Data, options: DecodeOptions = DecodeOptions()) throws(ImageKernelError) -> Image {
        guard let coder = coder(forDecoding: data) else {
            throw ImageKernelError(
                stage: .decode, code: .noCoder,
                message: "no registered coder decodes \(ImageFormat.sniff(data)) data (\(data.count) bytes)")
        }
        return try coder.decode(data, options: options)
    }

    /// Encodes with the first coder that can, or throws ``ImageKernelError/Code/noCoder``.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions = EncodeOptions()) throws(ImageKernelError) -> Data {
        guard let coder = coder(forEncoding: format) else {
            throw ImageKernelError(stage: .encode, code: .noCoder, message: "no registered coder encodes \(format)")
        }
        return try coder.encode(image, as: format, options: options)
    }
}
