@testable import CacheRedis
import Foundation
import Testing

/// Redis keys are the prefix and the hex SHA-256 of the cache key's UTF-8: pinned here so that a
/// change of hashing library cannot orphan a fleet's entries.
@Suite struct KeyNamingTests {
    @Test func redisKeyIsPrefixPlusHexSHA256OfTheKeysUTF8() {
        // python3: "t:" + hashlib.sha256("https://example.com/a b.jpg?x=1#é".encode()).hexdigest()
        let key = KeyNaming(prefix: "t:").redisKey(for: "https://example.com/a b.jpg?x=1#é")
        #expect(String(decoding: key, as: UTF8.self) == "t:250468144f64988a8e49329c495886b1cb004323b1de440745e5aa53bb998fb0")
        #expect(KeyNaming(prefix: "").redisKey(for: "") == Data("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".utf8))
    }
}
