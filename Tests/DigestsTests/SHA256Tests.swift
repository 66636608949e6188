import Digests
import Foundation
import Testing

/// NIST's SHA-256 examples (FIPS 180-4 and the CAVS short and long messages).
@Suite struct SHA256Tests {
    static let vectors: [(message: String, hex: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]
    static let millionAs = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    static let millionAsHex = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

    @Test func oneShotMatchesNISTVectorsForEveryInputType() {
        for (message, hex) in Self.vectors {
            #expect(SHA256.hash(Array(message.utf8)).hex == hex, "[UInt8] \(message)")
            #expect(SHA256.hash(Data(message.utf8)).hex == hex, "Data \(message)")
            #expect(SHA256.hash(utf8: message).hex == hex, "utf8 \(message)")
            #expect(SHA256.hash(utf8: message).count == SHA256.byteCount)
        }
    }

    @Test func millionAsOneShotAndInPrimeSizedChunks() {
        #expect(SHA256.hash(Self.millionAs).hex == Self.millionAsHex)
        var hasher = SHA256.Hasher()
        var offset = 0
        while offset < Self.millionAs.count {
            let end = min(offset + 997, Self.millionAs.count)
            hasher.update(Self.millionAs[offset..<end])
            offset = end
        }
        #expect(hasher.finalize().hex == Self.millionAsHex)
    }

    @Test(arguments: [1, 3, 55, 56, 63, 64, 65, 111, 127, 129])
    func incrementalSplitAtOddBoundariesMatchesOneShot(chunk: Int) {
        let message = Array(Self.vectors[3].message.utf8) + Array(Self.vectors[2].message.utf8)
        var hasher = SHA256.Hasher()
        var offset = 0
        while offset < message.count {
            let end = min(offset + chunk, message.count)
            hasher.update(message[offset..<end])
            hasher.update([UInt8]())  // empty updates change nothing
            offset = end
        }
        #expect(hasher.finalize() == SHA256.hash(message))
    }

    @Test func hasherOfNothingIsTheEmptyDigest() {
        #expect(SHA256.Hasher().finalize().hex == Self.vectors[0].hex)
        // A hasher dropped unfinished frees its state (LeakSanitizer in scripts/sanitize.sh sees it).
        var dropped = SHA256.Hasher()
        dropped.update(Data("abc".utf8))
        _ = consume dropped
    }

    @Test func concurrentCallersGetTheSameDigests() async {
        let digests = await withTaskGroup(of: String.self) { group in
            for index in 0..<64 {
                group.addTask { index.isMultiple(of: 2) ? SHA256.hash(utf8: "abc").hex : MD5.hash(Data("abc".utf8)).hex }
            }
            return await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(digests == [Self.vectors[1].hex, "900150983cd24fb0d6963f7d28e17f72"])
    }
}
