import Foundation
import ImageKernel

/// Checks an ``ImageCoder`` against the implementation requirements of the protocol.
///
/// ```swift
/// let fixtures = [CoderFixture(name: "a.png", data: bytes, format: .png, width: 32, height: 32)]
/// try await CoderConformance(
///     coder: MyPNGCoder(), fixtures: fixtures,
///     encodeTargets: [.init(format: .png, isLossless: true)]
/// ).run()
/// ```
///
/// Each case runs on a thread of its own under ``timeout``, so a coder that hangs fails the case
/// instead of hanging the caller. Random inputs come from a fixed seed: every run feeds the same
/// bytes.
///
/// ## Cases
/// - ``Case/sniffingAgreesWithDecode``: `canDecode` is true for every fixture, false for empty
///   input, for random bytes and for the signatures of every kernel-sniffed format the coder does
///   not claim (``claimedFormats``).
/// - ``Case/sniffsFromLeadingBytes``: `canDecode` is true for the first ``sniffPrefixLength``
///   bytes of every fixture, so a coder can be chosen before the whole file has arrived.
/// - ``Case/decodesEveryFixture``: every fixture decodes to a consistent buffer with the
///   fixture's size, source format, and (when given) pixel format, orientation and RGBA8 pixels;
///   the image is not a preview.
/// - ``Case/rejectsEmptyInput``: decoding no bytes throws.
/// - ``Case/rejectsRandomInput``: decoding random bytes (1 B to 64 KiB) throws.
/// - ``Case/rejectsTruncatedInput``: every fixture cut to 1 byte, 16 bytes and half its length
///   throws (fixtures with ``CoderFixture/rejectsTruncation`` false are cut too, and must then
///   throw or give a consistent image).
/// - ``Case/survivesCorruptedInput``: fixtures with bytes flipped after their first 16 bytes
///   either throw or decode to a consistent image within a pixel limit of four times the largest
///   fixture (at least one megapixel).
/// - ``Case/decodeErrorsNameStageAndPlugin``: errors for empty, random and truncated input have
///   stage `.decode`, the coder's ``ImageCoder/name`` as plugin, and a code other than
///   `internal` or `cancelled`.
/// - ``Case/roundTripKeepsSize``: for each ``EncodeTarget``, `canEncode` is true and encoding
///   gradients in the target's pixel formats (one with padded rows) and every decoded fixture in
///   those formats gives bytes the coder sniffs and decodes back to the same size.
/// - ``Case/roundTripKeepsPixels``: lossless targets give back the exact RGBA8 pixels (an image
///   with alpha encoded to a format without alpha must come back composited over
///   ``EncodeOptions/backgroundColor``, ±1); lossy targets keep smooth opaque gradients within
///   ``EncodeTarget/maxMeanError``.
/// - ``Case/refusesUnsupportedEncodeFormat``: for a format no coder knows, `canEncode` is false
///   and `encode` throws `unsupported` at stage `.encode`.
/// - ``Case/thumbnailFitsRequestedSize``: with a thumbnail size at least the image's size the
///   image keeps its size; with a smaller one the image is ``PixelSize/thumbnail(of:fitting:)`` (±1): it fits inside
///   the requested size (±1 pixel), keeps its aspect ratio (±1 pixel) and is at most about twice
///   the size needed (room for a codec's own scaling steps); with an empty box (a side of zero) the
///   image keeps its full size.
/// - ``Case/refusesImagesOverPixelLimit``: a pixel limit one below a fixture's pixel count throws
///   `pixelLimitExceeded`; a limit equal to it decodes.
/// - ``Case/refusesScaleDownPastCeiling``: with ``DecodeOptions/scaleDownLargeImages``, a pixel
///   limit one below a fixture's pixel count and a ``DecodeOptions/scaleDownSourcePixelLimit`` one
///   below it too, decoding throws `pixelLimitExceeded`; with the ceiling equal to the pixel
///   count it gives an image within the pixel limit or (a coder that never scales down) throws
///   `pixelLimitExceeded`.
/// - ``Case/concurrentUseAgrees``: ``concurrency`` threads decoding the fixtures and encoding
///   round trips at once get exactly what a single thread gets.
///
/// With no encode targets the encode round-trip cases have nothing to check and pass; the
/// other cases need at least one fixture and fail without one.
public struct CoderConformance: ConformanceSuite {
    /// The cases of the coder suite; see the type's documentation for what each proves.
    public enum Case: String, CaseIterable, Sendable {
        /// `canDecode` accepts every fixture and rejects empty, random and foreign-format bytes.
        case sniffingAgreesWithDecode
        /// `canDecode` decides on the leading bytes alone.
        case sniffsFromLeadingBytes
        /// Every fixture decodes to the expected size, format, orientation and pixels.
        case decodesEveryFixture
        /// Decoding no bytes throws.
        case rejectsEmptyInput
        /// Decoding random bytes throws.
        case rejectsRandomInput
        /// Decoding a cut-short fixture throws.
        case rejectsTruncatedInput
        /// Corrupted fixtures throw or decode to a consistent image within the pixel limit.
        case survivesCorruptedInput
        /// Decode errors carry stage `.decode`, the coder's name and a data error code.
        case decodeErrorsNameStageAndPlugin
        /// Encoding then decoding keeps the size, and the coder sniffs its own output.
        case roundTripKeepsSize
        /// Lossless round trips keep the pixels; lossy ones stay close on gradients.
        case roundTripKeepsPixels
        /// Encoding to an unknown format throws `unsupported`.
        case refusesUnsupportedEncodeFormat
        /// Thumbnail decodes fit inside the requested box, aspect ratio kept, never upscaled.
        case thumbnailFitsRequestedSize
        /// A pixel limit below the image's pixel count throws `pixelLimitExceeded`.
        case refusesImagesOverPixelLimit
        /// Scaling down refuses a source over the scale-down ceiling and stays within the pixel limit.
        case refusesScaleDownPastCeiling
        /// Many threads at once get what one thread gets.
        case concurrentUseAgrees
    }

    public static let suiteName = "CoderConformance"

    /// The coder under test.
    public let coder: any ImageCoder
    /// The encoded images to decode.
    public let fixtures: [CoderFixture]
    /// The formats to encode and how faithful each round trip must be.
    public let encodeTargets: [EncodeTarget]
    /// The base options for every decode; cases change only the thumbnail size and pixel limit.
    public let decodeOptions: DecodeOptions
    /// The formats the coder may claim in `canDecode`; by default the fixtures' formats.
    public let claimedFormats: Set<ImageFormat>
    /// How many leading bytes `canDecode` must be able to decide on.
    public let sniffPrefixLength: Int
    /// How many threads the concurrency case uses.
    public let concurrency: Int
    /// The time limit of one case; a guard against hangs, never a speed test.
    public let timeout: Duration

    /// Creates the suite.
    /// - Parameters:
    ///   - coder: The coder under test.
    ///   - fixtures: Encoded images with their expected decode; at least one.
    ///   - encodeTargets: Formats to encode; empty for a decode-only coder.
    ///   - decodeOptions: Base options for every decode.
    ///   - claimedFormats: Formats `canDecode` may accept; nil means the fixtures' formats.
    ///   - sniffPrefixLength: Leading bytes `canDecode` must be able to decide on (default 64).
    ///   - concurrency: Threads in the concurrency case (default 8).
    ///   - timeout: Time limit per case (default 120 s).
    public init(
        coder: any ImageCoder, fixtures: [CoderFixture], encodeTargets: [EncodeTarget] = [],
        decodeOptions: DecodeOptions = DecodeOptions(), claimedFormats: Set<ImageFormat>? = nil,
        sniffPrefixLength: Int = 64, concurrency: Int = 8, timeout: Duration = .seconds(120)
    ) {
        self.coder = coder
        self.fixtures = fixtures
        self.encodeTargets = encodeTargets
        self.decodeOptions = decodeOptions
        self.claimedFormats = claimedFormats ?? Set(fixtures.map(\.format))
        self.sniffPrefixLength = sniffPrefixLength
        self.concurrency = max(2, concurrency)
        self.timeout = timeout
    }

    /// Runs one case; throws a ``ConformanceFailure`` naming the case and the input that failed.
    public func run(case testCase: Case) async throws(ConformanceFailure) {
        let context = CaseContext(Self.self, testCase)
        try await context.runBlocking(timeout) { () throws(ConformanceFailure) in
            try self.check(testCase, context)
        }
    }

    private func check(_ testCase: Case, _ context: CaseContext) throws(ConformanceFailure) {
        switch testCase {
        case .sniffingAgreesWithDecode: try checkSniffingAgreesWithDecode(context)
        case .sniffsFromLeadingBytes: try checkSniffsFromLeadingBytes(context)
        case .decodesEveryFixture: try checkDecodesEveryFixture(context)
        case .rejectsEmptyInput: try checkRejectsEmptyInput(context)
        case .rejectsRandomInput: try checkRejectsRandomInput(context)
        case .rejectsTruncatedInput: try checkRejectsTruncatedInput(context)
        case .survivesCorruptedInput: try checkSurvivesCorruptedInput(context)
        case .decodeErrorsNameStageAndPlugin: try checkDecodeErrorsNameStageAndPlugin(context)
        case .roundTripKeepsSize: try checkRoundTrip(context, pixels: false)
        case .roundTripKeepsPixels: try checkRoundTrip(context, pixels: true)
        case .refusesUnsupportedEncodeFormat: try checkRefusesUnsupportedEncodeFormat(context)
        case .thumbnailFitsRequestedSize: try checkThumbnailFitsRequestedSize(context)
        case .refusesImagesOverPixelLimit: try checkRefusesImagesOverPixelLimit(context)
        case .refusesScaleDownPastCeiling: try checkRefusesScaleDownPastCeiling(context)
        case .concurrentUseAgrees: try checkConcurrentUseAgrees(context)
        }
    }

    // MARK: Shared helpers

    /// The fixtures, or a failure when there are none.
    func requireFixtures(_ context: CaseContext) throws(ConformanceFailure) -> [CoderFixture] {
        guard !fixtures.isEmpty else { throw context.failure("no fixtures", "the coder suite needs at least one fixture") }
        return fixtures
    }

    /// Decodes without letting an error escape.
    func decode(_ data: Data, _ options: DecodeOptions) -> Result<Image, ImageKernelError> {
        do { return .success(try coder.decode(data, options: options)) } catch { return .failure(error) }
    }

    /// Encodes without letting an error escape.
    func encode(_ image: Image, _ target: EncodeTarget) -> Result<Data, ImageKernelError> {
        do { return .success(try coder.encode(image, as: target.format, options: target.options)) } catch {
            return .failure(error)
        }
    }

    /// Decodes a fixture that must decode.
    func decodeFixture(_ fixture: CoderFixture, _ options: DecodeOptions, _ context: CaseContext) throws(ConformanceFailure) -> Image {
        switch decode(fixture.data, options) {
        case .success(let image): return image
        case .failure(let error): throw context.failure(fixture.described, "decode threw", underlying: error)
        }
    }
}
