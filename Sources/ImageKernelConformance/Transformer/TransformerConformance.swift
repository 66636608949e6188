import Foundation
import ImageKernel

/// Checks an ``ImageTransformer`` against the implementation requirements of the protocol.
///
/// ```swift
/// try await TransformerConformance(transformer: ClosureTransformer(key: "identity") { $0 }).run()
/// ```
///
/// A transformer may refuse an image it cannot handle by throwing an ``ImageKernelError`` with
/// stage `.transform`; it must never crash, and whatever it returns must be a consistent image.
/// The ``inputs`` (by default smooth gradients in RGBA8 and RGB8) are images it must handle.
///
/// ## Cases
/// - ``Case/keyIsStableAndNonEmpty``: ``ImageTransformer/key`` is not empty and reads the same
///   every time.
/// - ``Case/outputIsValidImage``: every input transforms without throwing into an image whose
///   buffer holds what its size, pixel format and `bytesPerRow` promise.
/// - ``Case/outputIsDeterministic``: transforming the same input twice gives equal images.
/// - ``Case/handlesEveryPixelFormat``: a 29×19 gradient in every kernel pixel format (8- and
///   16-bit, gray to RGBA, premultiplied) gives a consistent image or a `.transform` error.
/// - ``Case/handlesOnePixelImage``: a 1×1 image in every pixel format gives a consistent image
///   or a `.transform` error.
/// - ``Case/honorsRowPadding``: every input with 12 bytes of padding after each row gives the
///   same size and RGBA8 pixels as the same input without padding.
/// - ``Case/concurrentUseAgrees``: ``concurrency`` threads transforming the inputs at once get
///   exactly what one thread gets.
public struct TransformerConformance: ConformanceSuite {
    /// The cases of the transformer suite; see the type's documentation for what each proves.
    public enum Case: String, CaseIterable, Sendable {
        /// The key is non-empty and stable.
        case keyIsStableAndNonEmpty
        /// Every input gives a consistent image.
        case outputIsValidImage
        /// The same input gives the same output.
        case outputIsDeterministic
        /// Every pixel format gives a consistent image or a `.transform` error.
        case handlesEveryPixelFormat
        /// A 1×1 image gives a consistent image or a `.transform` error.
        case handlesOnePixelImage
        /// Padded rows give the same output as tight rows.
        case honorsRowPadding
        /// Many threads at once get what one thread gets.
        case concurrentUseAgrees
    }

    public static let suiteName = "TransformerConformance"

    /// Smooth gradients, 37×23 RGBA8 and 48×32 RGB8.
    public static let defaultInputs: [Image] = [
        SyntheticImage.gradient(width: 37, height: 23, format: .rgba8),
        SyntheticImage.gradient(width: 48, height: 32, format: .rgb8),
    ]

    /// The transformer under test.
    public let transformer: any ImageTransformer
    /// Images the transformer must handle without throwing.
    public let inputs: [Image]
    /// How many threads the concurrency case uses.
    public let concurrency: Int
    /// The time limit of one case; a guard against hangs.
    public let timeout: Duration

    /// Creates the suite.
    /// - Parameters:
    ///   - transformer: The transformer under test.
    ///   - inputs: Images it must handle (default ``defaultInputs``).
    ///   - concurrency: Threads in the concurrency case (default 8).
    ///   - timeout: Time limit of one case (default 60 s).
    public init(
        transformer: any ImageTransformer, inputs: [Image] = TransformerConformance.defaultInputs, concurrency: Int = 8,
        timeout: Duration = .seconds(60)
    ) {
        self.transformer = transformer
        self.inputs = inputs
        self.concurrency = max(2, concurrency)
        self.timeout = timeout
    }

    /// Runs one case; throws a ``ConformanceFailure`` naming the case and the input that failed.
    public func run(case testCase: Case) async throws(ConformanceFailure) {
        let context = CaseContext(Self.self, testCase)
        try await context.runBlocking(timeout) { () throws(ConformanceFailure) in
            guard !inputs.isEmpty else { throw context.failure("no inputs", "the transformer suite needs at least one input") }
            switch testCase {
            case .keyIsStableAndNonEmpty: try checkKeyIsStableAndNonEmpty(context)
            case .outputIsValidImage: try checkOutputIsValidImage(context)
            case .outputIsDeterministic: try checkOutputIsDeterministic(context)
            case .handlesEveryPixelFormat: try checkTolerates(SyntheticImage.allPixelFormats.map { SyntheticImage.gradient(width: 29, height: 19, format: $0) }, context)
            case .handlesOnePixelImage: try checkTolerates(SyntheticImage.allPixelFormats.map { SyntheticImage.gradient(width: 1, height: 1, format: $0) }, context)
            case .honorsRowPadding: try checkHonorsRowPadding(context)
            case .concurrentUseAgrees: try checkConcurrentUseAgrees(context)
            }
        }
    }
}
