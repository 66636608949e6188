import Foundation
import ImageKernel

extension RedisCache {
    /// Whether Redis holds an entry for `key`, as the server answered: unlike
    /// ``contains(key:type:)``, which answers `.none` for a server that cannot answer in time,
    /// this throws then, so a worker never takes "no answer" for "not stored" or the reverse.
    /// - Throws: ``ImageKernelError`` (`cannotConnect`, `timeout`, `connectionLost`).
    public func confirmedContains(key: String) async throws(ImageKernelError) -> Bool {
        let redisKey = naming.redisKey(for: key)
        return try await run(RedisCommand("EXISTS", redisKey), key: redisKey).integer ?? 0 > 0
    }
}
