import CacheDisk
import Foundation
import ImageKernel
import Transformers

extension ImageProxyService {
    /// Maps a path (with its Accept) to its result key for the hot path (see ``routes``).
    func remember(route routeKey: String, key: String, negotiated: Bool) {
        routes.withLock { routes in
            let cost = routeKey.utf8.count + key.utf8.count
            if routes.bytes + cost > Self.routeBytesLimit {
                routes.map.removeAll(keepingCapacity: true)
                routes.bytes = 0
            }
            if routes.map.updateValue((key, negotiated), forKey: routeKey) == nil { routes.bytes += cost }
        }
    }

    /// What a result is kept under: the source, the normalised spec's key, the format choice, the
    /// quality.
    static func resultKey(source: URL, specKey: String?, choice: OutputChoice, quality: Int) -> String {
        "\(source.absoluteString)\n\(specKey ?? "")\n\(choice.keyPart)\nq\(quality)"
    }

    /// The spec `text` parses to, and its key (see ``specs``).
    func parsedSpec(_ text: String) throws(ProxyError) -> (spec: TransformSpec, key: String) {
        if let known = specs.withLock({ $0[text] }) { return known }
        let spec: TransformSpec
        do throws(TransformSpecError) {
            spec = try TransformSpec(parsing: text)  // threads: see produce(…)
        } catch {
            throw ProxyError.invalidSpec(error.description)
        }
        let parsed = (spec: spec, key: spec.key)
        specs.withLock { specs in
            if specs.count >= Self.specLimit { specs.removeAll(keepingCapacity: true) }
            specs[text] = parsed
        }
        return parsed
    }

    /// A result's name in the results cache: the digest of its key. The key has no file
    /// extension to keep, so a lookup that misses costs one `open`, not one per candidate name.
    static func diskKey(forResult key: String) -> String { Digest.hex(of: key) }

    /// The encoded result kept on disk under `key`, if any.
    func storedResult(key: String) async -> Rendered? {
        guard let resultDisk, let hit = try? await resultDisk.query(key: Self.diskKey(forResult: key), type: .disk), let data = hit.entry.data,
              let etag = hit.entry.validators?.etag
        else { return nil }
        return Rendered(data: data, format: ImageFormat.sniff(data), etag: etag)
    }

    /// Keeps `rendered` on disk (a failing disk is logged, never an error for the request).
    func store(_ rendered: Rendered, key: String) async {
        storeNow(rendered, key: key)
    }

    /// ``store(_:key:)`` on the calling thread (the disk cache's writes are synchronous).
    func storeNow(_ rendered: Rendered, key: String) {
        guard let resultDisk else { return }
        do {
            try resultDisk.storeData(rendered.data, validators: CacheValidators(etag: rendered.etag), forKey: Self.diskKey(forResult: key))
        } catch {
            logger.warning("result not kept on disk", metadata: ["error": "\(error)"])
        }
    }

    /// Lets results still being written reach the disk, and the disk caches finish their
    /// maintenance (for a clean exit; at most 5 s for the results).
    public func waitUntilIdle() async {
        for _ in 0..<500 where pendingStores.withLock({ $0 }) > 0 { try? await Task.sleep(for: .milliseconds(10)) }
        resultDisk?.waitUntilIdle()
        originalDisk?.waitUntilIdle()
    }
}
