import CoderTIFF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// libtiff prints warnings and errors on stderr through its process-wide handlers unless a
/// handler of the TIFF handle takes them; TIFFCoder's handlers keep them in the result.
@Suite("libtiff's messages never reach stderr", .serialized)
struct WarningTests {
    /// Runs `body` with file descriptor 2 pointing at a temporary file; returns what was written.
    static func capturingStderr(_ body: () throws -> Void) rethrows -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ctiff-stderr-\(UUID().uuidString)").path
        let file = open(path, O_CREAT | O_RDWR | O_TRUNC, 0o600)
        let saved = dup(2)
        dup2(file, 2)
        defer {
            dup2(saved, 2)
            close(saved)
            close(file)
            unlink(path)
        }
        // stderr is unbuffered: whatever libtiff printed is in the file now.
        try body()
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Files that make libtiff warn (unknown tags, bogus counts) or fail.
    static let noisyFiles = [
        "tiff/pillow/hopper_unknown_pixel_mode.tif", "broken/tiff/pillow/tiff_wrong_bits_per_sample.tiff",
        "broken/tiff/pillow/crash-2020-10-test.tif", "broken/tiff/libtiff/test_ifd_loop_to_self.tif",
        "tiff/pillow/12bit.cropped.tif", "tiff/libtiff/ojpeg_zackthecat_subsamp22_single_strip.tiff",
    ]

    @Test func warningsAreCapturedInTheImageOrError() throws {
        var messages: [String] = []
        let printed = try Self.capturingStderr {
            for path in Self.noisyFiles {
                let data = try TestData.data(path)
                do {
                    let image = try TIFFCoder().decode(data, options: DecodeOptions())
                    if let warnings = image.decoderNotes["tiff.warnings"] { messages.append(warnings) }
                } catch let error as ImageKernelError {
                    messages.append(error.message)
                }
            }
        }
        #expect(messages.contains { !$0.isEmpty }, "at least one of these files makes libtiff say something")
        for message in messages {
            // The first words of each message libtiff gave us must not also be on stderr.
            let probe = String(message.prefix(30))
            #expect(!printed.contains(probe), "libtiff printed \(probe)")
        }
        // Tests of other suites run beside this one and the test runner writes their progress to the
        // same descriptor: only lines that are not the runner's count as libtiff's.
        let libtiffLines = printed.split(separator: "\n").filter { $0.contains("TIFF") && !$0.contains("Test ") && !$0.contains("Suite ") }
        #expect(libtiffLines.isEmpty, "stderr got: \(libtiffLines.prefix(3))")
    }
}
