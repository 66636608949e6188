@testable import CacheRedis
import Foundation
import Testing

/// Keys map to slots as the cluster specification says.
@Suite struct HashSlotTests {
    @Test func crc16IsXModemAsTheSpecificationGivesIt() {
        let crc = Array("123456789".utf8).withUnsafeBufferPointer { HashSlot.crc16($0[...]) }
        #expect(crc == 0x31C3)
    }

    @Test func slotsOfKnownKeys() {
        // Values of CLUSTER KEYSLOT on Redis 7.
        #expect(HashSlot.of(Data("foo".utf8)) == 12182)
        #expect(HashSlot.of(Data("bar".utf8)) == 5061)
        #expect(HashSlot.of(Data("hello".utf8)) == 866)
        #expect(HashSlot.of(Data()) == 0)
    }

    @Test func hashTagsHashOnlyTheTag() {
        let user = HashSlot.of(Data("user1000".utf8))
        #expect(HashSlot.of(Data("{user1000}.following".utf8)) == user)
        #expect(HashSlot.of(Data("{user1000}.followers".utf8)) == user)
        // The first `{` and the first `}` after it; an empty tag hashes the whole key.
        #expect(HashSlot.of(Data("foo{}{bar}".utf8)) == HashSlot.of(Data("foo{}{bar}".utf8)))
        #expect(HashSlot.of(Data("foo{}{bar}".utf8)) != HashSlot.of(Data("bar".utf8)))
        #expect(HashSlot.of(Data("foo{{bar}}zap".utf8)) == HashSlot.of(Data("{bar".utf8)))
        #expect(HashSlot.of(Data("foo{bar}{zap}".utf8)) == HashSlot.of(Data("bar".utf8)))
        #expect(HashSlot.of(Data("no}tag{here".utf8)) == Int(Array("no}tag{here".utf8).withUnsafeBufferPointer { HashSlot.crc16($0[...]) } & 0x3FFF))
    }

    @Test func redirectionsParse() {
        #expect(ClusterError("MOVED 3999 127.0.0.1:6381") == .moved(slot: 3999, to: NodeAddress(host: "127.0.0.1", port: 6381)))
        #expect(ClusterError("ASK 3999 [::1]:7000") == .ask(slot: 3999, to: NodeAddress(host: "::1", port: 7000)))
        #expect(ClusterError("TRYAGAIN Multiple keys request during rehashing of slot") == .tryAgain)
        #expect(ClusterError("CLUSTERDOWN The cluster is down") == .clusterDown)
        #expect(ClusterError("LOADING Redis is loading the dataset in memory") == .loading)
        #expect(ClusterError("READONLY You can't write against a read only replica.") == .readOnly)
        #expect(ClusterError("MOVED 99999 127.0.0.1:1") == nil)
        #expect(ClusterError("MOVED 1 nowhere") == nil)
        #expect(ClusterError("ERR wrong number of arguments") == nil)
    }
}
