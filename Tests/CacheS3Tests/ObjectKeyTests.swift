import CacheS3
import Foundation
import Testing

/// Object names are the prefix and the hex SHA-256 of the cache key's UTF-8: pinned here so that a
/// change of hashing library cannot orphan a bucket's entries. No gateway: naming sends nothing.
@Suite struct ObjectKeyTests {
    @Test func objectKeyIsPrefixPlusHexSHA256OfTheKeysUTF8() {
        let cache = S3Cache(configuration: S3Cache.Configuration(bucket: "b", prefix: "results/"))
        // python3: "results/" + hashlib.sha256(b"https://example.com/cat.jpg-resize:fit:300:200").hexdigest()
        #expect(cache.objectKey(for: "https://example.com/cat.jpg-resize:fit:300:200")
            == "results/7340ea850cc5644312301bc4bb5be8a3f8fef36385aeafac5aa182b046370a5d")
    }
}
