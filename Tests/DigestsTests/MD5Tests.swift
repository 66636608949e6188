import Digests
import Foundation
import Testing

/// RFC 1321's test suite (appendix A.5), and the digest value type.
@Suite struct MD5Tests {
    @Test func rfc1321Suite() {
        let suite: [(String, String)] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (message, hex) in suite {
            let digest = MD5.hash(Array(message.utf8))
            #expect(digest.hex == hex, "\(message)")
            #expect(digest.count == MD5.byteCount)
            #expect(Hex.string(digest) == hex)
        }
    }

    @Test func digestBytesBehaveAsAByteCollection() {
        let digest = SHA256.hash(utf8: "abc")
        #expect(Array(digest) == Array(Data(digest)))
        #expect(digest.first == 0xba && digest.last == 0xad)
        #expect(digest.withUnsafeBytes { $0.count } == 32)
        #expect(digest.description == digest.hex)
        #expect(Set([digest, SHA256.hash(Data("abc".utf8)), SHA256.hash(utf8: "abd")]).count == 2)
        #expect(MD5.hash([UInt8]()) != SHA256.hash([UInt8]()))
        #expect(digest.constantTimeEquals(Array(digest)))
        #expect(!digest.constantTimeEquals(Array(digest.dropLast())))
        #expect(Hex.string([0x00, 0x0f, 0xf0, 0xff]) == "000ff0ff")
    }
}
