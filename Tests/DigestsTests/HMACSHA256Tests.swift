import Digests
import Foundation
import Testing

/// RFC 4231's HMAC-SHA256 test cases.
@Suite struct HMACSHA256Tests {
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    static let cases: [(name: String, key: [UInt8], data: [UInt8], hex: String)] = [
        ("1", [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        ("2", Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ("3", [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        ("4", Array(1...25), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        ("6: 131-byte key", [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ("7: 131-byte key, long data", [UInt8](repeating: 0xaa, count: 131),
         Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test func rfc4231Cases() {
        for testCase in Self.cases {
            let mac = HMACSHA256.authenticationCode(for: testCase.data, key: testCase.key)
            #expect(mac.hex == testCase.hex, "case \(testCase.name)")
            #expect(HMACSHA256.authenticationCode(for: Data(testCase.data), key: Data(testCase.key)) == mac, "case \(testCase.name) as Data")
            #expect(HMACSHA256.isValidAuthenticationCode(Self.bytes(testCase.hex), for: testCase.data, key: testCase.key))
        }
    }

    @Test func rfc4231Case5TruncatedTo128Bits() {
        let mac = HMACSHA256.authenticationCode(for: Array("Test With Truncation".utf8), key: [UInt8](repeating: 0x0c, count: 20))
        #expect(Hex.string(mac.prefix(16)) == "a3b6167473100ee06e0c796c2955552b")
    }

    @Test func emptyKeyAndEmptyMessageAreRealInputs() {
        // HMAC-SHA256("", ""), as Python's hmac and openssl dgst compute it.
        #expect(HMACSHA256.authenticationCode(for: [UInt8](), key: [UInt8]()).hex
            == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func aMACKeysTheNextOneAsInSigV4() {
        // AWS's documented derivation: kSecret "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", 20120215, us-east-1, iam.
        var key = HMACSHA256.authenticationCode(for: Array("20120215".utf8), key: Array("AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".utf8))
        for part in ["us-east-1", "iam", "aws4_request"] { key = HMACSHA256.authenticationCode(for: Array(part.utf8), key: key) }
        #expect(key.hex == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d")
    }

    @Test func validationRefusesAnyOtherCode() {
        let key = Array("Jefe".utf8), data = Array("what do ya want for nothing?".utf8)
        var code = Self.bytes(Self.cases[1].hex)
        #expect(HMACSHA256.isValidAuthenticationCode(code, for: data, key: key))
        code[31] ^= 1
        #expect(!HMACSHA256.isValidAuthenticationCode(code, for: data, key: key))
        #expect(!HMACSHA256.isValidAuthenticationCode(code.prefix(16), for: data, key: key))
        #expect(!HMACSHA256.isValidAuthenticationCode([UInt8](), for: data, key: key))
    }
}
