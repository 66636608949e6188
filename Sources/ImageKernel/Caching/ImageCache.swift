import Foundation

/// Stores images and their original bytes by key.
///
/// ## Implementation requirements
/// - **Thread safety.** Shared and `Sendable`; every method may run concurrently with every other,
///   from many tasks. A reader never sees a half-written entry.
/// - **Cache types.** `type` says which tiers an operation touches: ``ImageCacheType/memory``,
///   ``ImageCacheType/disk`` or ``ImageCacheType/all``. A cache without a tier ignores it
///   (a memory-only cache answers `.disk` queries with nil and stores nothing for `.disk`).
///   ``ImageCacheType/none`` touches nothing.
/// - **Results.** ``query(key:type:)`` returns nil on a miss, never an error; it reports where the
///   hit came from in ``CacheQueryResult/source``. A hit holds an image, original bytes, or both.
/// - **Cancellation.** A query whose task is cancelled throws ``ImageKernelError`` with code
///   ``ImageKernelError/Code/cancelled`` instead of returning (the methods throw only
///   `ImageKernelError`; ``ImageKernelError/checkCancellation(_:plugin:)`` is the typed form of
///   `Task.checkCancellation()`).
/// - **Errors.** Throw ``ImageKernelError`` with stage `.cache` and ``name`` as plugin: storage
///   failures (full disk, permissions) and entries the tier cannot keep. A failure never loses or
///   corrupts other entries, and a tier whose store fails keeps the entry it had.
/// - **What a tier keeps.** A memory tier keeps the image (and the bytes when given). A
///   persistent tier keeps bytes: given an entry with an image but no bytes, it encodes the image
///   (with a configured encoder or serializer; the conventional choice is PNG when the image has
///   alpha, else JPEG, through a ``CoderRegistry``) or, when it has no way to encode, throws
///   (code `unsupported`) and keeps the old entry. A tier never silently deletes the old entry
///   and writes nothing, and a store is never silently a no-op for a tier it has: a tier that
///   keeps less than it is given documents what it keeps.
/// - **Keys.** Any string, including an empty one, is a valid key and must never escape the
///   cache's own storage (a key is not a path).
public protocol ImageCache: Sendable {
    /// A short name for errors and logs.
    var name: String { get }
    /// The entry stored under `key` in the given tiers, or nil.
    /// - Throws: ``ImageKernelError``; code `cancelled` when the task was cancelled.
    func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult?
    /// Stores the entry under `key` in the given tiers, replacing what was there.
    /// - Throws: ``ImageKernelError`` at stage `.cache` when a tier cannot keep the entry; the
    ///   entry stored before stays.
    func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError)
    /// Removes the entry under `key` from the given tiers.
    func remove(key: String, type: ImageCacheType) async throws(ImageKernelError)
    /// Where an entry for `key` exists: `.none`, `.memory`, `.disk` (the first tier that has it).
    func contains(key: String, type: ImageCacheType) async -> ImageCacheType
    /// Removes every entry from the given tiers.
    func clear(type: ImageCacheType) async throws(ImageKernelError)
    /// The in-process memory tier that ``query(key:type:)`` with ``ImageCacheType/memory`` reads,
    /// for a synchronous lookup before any work is claimed, or nil (the default).
    ///
    /// Return a ``MemoryCache`` only when a `.memory` query is exactly a lookup in it (same
    /// entries, no side effects of its own such as counting or logging); the manager then
    /// answers a finished result from it without a query. A cache that wraps another
    /// (to count, log or fault queries) keeps the default, so every lookup reaches its `query`.
    var memoryTier: MemoryCache? { get }
}

extension ImageCache {
    public var memoryTier: MemoryCache? { nil }
}

/// Which tiers of a cache an operation touches, or where a result came from.
public enum ImageCacheType: String, Sendable, Hashable, CaseIterable {
    /// No cache (for a result: loaded from the source).
    case none
    /// The memory tier.
    case memory
    /// The disk (or other persistent) tier.
    case disk
    /// Every tier.
    case all

    /// Whether this type includes the memory tier.
    public var includesMemory: Bool { self == .memory || self == .all }
    /// Whether this type includes the disk tier.
    public var includesDisk: Bool { self == .disk || self == .all }
}

/// What a cache holds under one key.
public struct CacheEntry: Sendable {
    /// The decoded image, when the tier keeps images.
    public var image: Image?
    /// The encoded bytes, when the tier keeps bytes.
    public var data: Data?
    /// Validators for revalidating with the source (`refreshCached`).
    public var validators: CacheValidators?

    public init(image: Image? = nil, data: Data? = nil, validators: CacheValidators? = nil) {
        self.image = image
        self.data = data
        self.validators = validators
    }
}

/// A cache hit.
public struct CacheQueryResult: Sendable {
    public var entry: CacheEntry
    /// The tier that answered: `.memory` or `.disk`.
    public var source: ImageCacheType
    /// True when a shared tier answered: one that other processes or machines fill too (a Redis
    /// cache). Its ``source`` is `.disk`; the CLI reports such a hit as `shared`.
    public var isShared: Bool

    public init(entry: CacheEntry, source: ImageCacheType, isShared: Bool = false) {
        self.entry = entry
        self.source = source
        self.isShared = isShared
    }
}
