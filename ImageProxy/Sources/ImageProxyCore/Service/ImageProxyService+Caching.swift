import CacheDisk
import Foundation
import ImageKernel
import Transformers

extension ImageProxyService {
    /// What the hot path needs of a path it has answered before.
    struct Route: Sendable {
        /// The result's key.
        let key: String
        /// Whether the format was negotiated (`Vary: Accept`).
        let negotiated: Bool
        /// The `Content-Disposition` asked for.
        let disposition: ContentDisposition?
        /// Whether the result depends on client hints (`Vary` names them).
        var readsClientHints = false
    }

    /// Maps a path (with its Accept) to its route for the hot path (see ``routes``).
    func remember(route routeKey: String, _ route: Route) {
        routes.withLock { routes in
            let cost = routeKey.utf8.count + route.key.utf8.count
            if routes.bytes + cost > Self.routeBytesLimit {
                routes.map.removeAll(keepingCapacity: true)
                routes.bytes = 0
            }
            if routes.map.updateValue(route, forKey: routeKey) == nil { routes.bytes += cost }
        }
    }

    /// What a result is kept under: the source, the normalised spec's key, the format choice, the
    /// output options that change the bytes, and the service's output defaults.
    func resultKey(source: URL, specKey: String?, choice: OutputChoice, output: ProxyRequest.Output) -> String {
        "\(source.absoluteString)\n\(specKey ?? "")\n\(choice.keyPart)\n\(output.keyPart)\n\(outputDefaultsKey)"
    }

    /// The spec `text` parses to, and its key (see ``specs``).
    /// A spec with a `watermark` step takes the service's watermark (``prepare()``), and its key
    /// the watermark's digest: the step's own key names the placement only.
    func parsedSpec(_ text: String) throws(ProxyError) -> (spec: TransformSpec, key: String) {
        if let known = specs.withLock({ $0[text] }) { return known }
        let spec: TransformSpec
        let mark = watermark.withLock { $0 }
        do throws(TransformSpecError) {
            spec = try TransformSpec(parsing: text, watermark: mark?.image)  // threads: see produce(…)
        } catch {
            throw ProxyError.invalidSpec(error.description)
        }
        var key = spec.key
        if let mark, spec.steps.contains(where: { $0 is WatermarkTransformer }) { key += "\nwatermark:" + mark.digest }
        let parsed = (spec: spec, key: key)
        specs.withLock { specs in
            if specs.count >= Self.specLimit { specs.removeAll(keepingCapacity: true) }
            specs[text] = parsed
        }
        return parsed
    }

    /// A result's name in the results cache: the digest of its key. The key has no file
    /// extension to keep, so a lookup that misses costs one `open`, not one per candidate name.
    static func diskKey(forResult key: String) -> String { Digest.hex(of: key) }

    /// The encoded result kept on disk under `key`, else in the result bucket, if any.
    func storedResult(key: String) async -> Rendered? {
        if let resultDisk, let hit = try? await resultDisk.query(key: Self.diskKey(forResult: key), type: .disk), let data = hit.entry.data,
           let etag = hit.entry.validators?.etag {
            return Rendered(data: data, format: ImageFormat.sniff(data), etag: etag)
        }
        return await resultBucket?.result(named: Self.diskKey(forResult: key))
    }

    /// Keeps `rendered` on disk and in the result bucket (a failing disk or bucket is logged, never
    /// an error for the request).
    func store(_ rendered: Rendered, key: String) async {
        storeNow(rendered, key: key)
    }

    /// ``store(_:key:)`` on the calling thread (the disk cache's writes are synchronous; the
    /// bucket's run on a task of their own, see ``ResultBucket/keep(_:named:)``).
    func storeNow(_ rendered: Rendered, key: String) {
        resultBucket?.keep(rendered, named: Self.diskKey(forResult: key))
        guard let resultDisk else { return }
        do {
            try resultDisk.storeData(rendered.data, validators: CacheValidators(etag: rendered.etag), forKey: Self.diskKey(forResult: key))
        } catch {
            logger.warning("result not kept on disk", metadata: ["error": "\(error)"])
        }
    }

    /// Lets results still being written reach the disk and the bucket, and the disk caches finish their
    /// maintenance (for a clean exit; at most 5 s for the results).
    public func waitUntilIdle() async {
        for _ in 0..<500 where pendingStores.withLock({ $0 }) + (resultBucket?.pendingStores ?? 0) > 0 { try? await Task.sleep(for: .milliseconds(10)) }
        await shared?.fleet.waitUntilPublished()
        resultDisk?.waitUntilIdle()
        originalDisk?.waitUntilIdle()
    }
}
