import Foundation

extension CacheEntry {
    /// The bytes a persistent tier writes for this entry, as ``ImageCache`` requires of a tier
    /// that keeps bytes: the entry's own bytes, else its image encoded with `encode`.
    ///
    /// For plugin authors: call it from `store` and write what it returns; when it throws, write
    /// nothing, so the old entry stays.
    /// - Parameters:
    ///   - key: The cache key, for messages.
    ///   - plugin: The tier's plugin name, for errors.
    ///   - place: Where the old entry lives, for messages (`"on disk"`, `"in Redis"`).
    ///   - encode: The tier's image encoder, or nil when it has none.
    /// - Throws: ``ImageKernelError`` at stage `.cache`: `invalidArgument` for an entry with
    ///   neither image nor bytes, `unsupported` for an image-only entry without an encoder, and the
    ///   encoder's code when encoding fails.
    public func persistentBytes(
        forKey key: String, plugin: String, place: String, encode: ((Image) throws(ImageKernelError) -> Data)?
    ) throws(ImageKernelError) -> Data {
        if let data { return data }
        guard let image else {
            throw ImageKernelError(
                stage: .cache, plugin: plugin, code: .invalidArgument,
                message: "an entry with neither an image nor bytes was stored for \(key.debugDescription); the entry \(place) was kept")
        }
        guard let encode else {
            throw ImageKernelError(
                stage: .cache, plugin: plugin, code: .unsupported,
                message: "the tier keeps bytes and has no imageEncoder to turn the image stored for \(key.debugDescription) into bytes; the entry \(place) was kept")
        }
        do {
            return try encode(image)
        } catch {
            throw ImageKernelError(
                stage: .cache, plugin: plugin, code: error.code,
                message: "cannot encode the \(image.width)×\(image.height) image stored for \(key.debugDescription): \(error.message); the entry \(place) was kept",
                cause: error)
        }
    }
}
