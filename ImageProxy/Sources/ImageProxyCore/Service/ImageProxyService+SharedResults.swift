import CacheRedis
import Foundation
import ImageKernel

/// The fleet's share of results: encoded results kept in the shared tier (Redis or Redis
/// Cluster, ``ProxyConfiguration/sharedCache``), so any instance answers what another rendered,
/// and one render per result across every instance on that tier (a `FleetCoalescer`: a lease
/// per result in Redis, renewed while its holder renders; the others poll the shared tier for
/// the result, and take the lease over when its holder died and it lapsed).
///
/// The fleet forms from the shared tier alone: no list of peers. Every wait is bounded (25 s at
/// most, then an instance renders alone) and an unreachable tier means each instance renders
/// alone at once, never an error.
struct SharedResults: Sendable {
    /// The shared tier (originals go through the manager's tiers to the same cache).
    let tier: RedisCache
    /// One render per result across the fleet.
    let fleet: FleetCoalescer

    init(tier: RedisCache) {
        self.tier = tier
        fleet = FleetCoalescer(cache: tier)
    }

    /// A result's key in the shared tier: the digest of its result key (no signature; the
    /// negotiated format is part of it), under its own prefix beside the originals.
    static func key(forResult key: String) -> String { "result:" + Digest.hex(of: key) }
}

extension ImageProxyService {
    /// The result `key` from the shared tier, if it holds it (a tier that cannot answer in time
    /// is a miss).
    func sharedResult(key: String) async -> Rendered? {
        guard let shared, let hit = try? await shared.tier.query(key: SharedResults.key(forResult: key), type: .disk), let data = hit.entry.data,
              let etag = hit.entry.validators?.etag
        else { return nil }
        return Rendered(data: data, format: ImageFormat.sniff(data), etag: etag)
    }

    /// Keeps `rendered` in the shared tier (a tier that does not take it is logged at debug
    /// level: the fleet then renders it again, nothing fails).
    func storeShared(_ rendered: Rendered, key: String) async {
        guard let shared else { return }
        do {
            let entry = CacheEntry(data: rendered.data, validators: CacheValidators(etag: rendered.etag))
            try await shared.tier.store(entry, forKey: SharedResults.key(forResult: key), type: .disk)
        } catch {
            logger.debug("result not kept in the shared tier", metadata: ["error": "\(error)"])
        }
    }

    /// The result `key` rendered once across the fleet: from the shared tier when another
    /// instance rendered it (cache type `shared`), else `render` here, holding the result's lease
    /// (or alone when the tier cannot answer), the result reaching the shared tier after the answer.
    /// Without a shared tier, `render` here.
    func renderOnceInFleet(
        key: String, _ render: () async -> Result<(Rendered, String), ProxyError>
    ) async -> Result<(Rendered, String), ProxyError> {
        guard let shared else { return await render() }
        do throws(ProxyError) {
            let (value, source) = try await shared.fleet.value(
                for: SharedResults.key(forResult: key),
                lookup: { await self.sharedResult(key: key).map { ($0, "shared") } },
                produce: { () throws(ProxyError) in try await render().get() },
                publish: { [self] in await storeShared($0.0, key: key) })
            if source == .found { results.set(value.0, forKey: key) }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
}
