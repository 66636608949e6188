import ImageKernel

/// Why a transform spec could not be parsed: which step (1-based, and its text) and what is wrong.
public struct TransformSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the step.
    public enum Problem: Sendable, Hashable {
        /// The spec has no steps.
        case emptySpec
        /// A step is empty (`a//b`, or a trailing `/`).
        case emptyStep
        /// The step's name is not a known transform.
        case unknownStep(String)
        /// The step has too few or too many arguments; `expected` describes what it takes.
        case wrongArgumentCount(expected: String, got: Int)
        /// An argument is not the number the step needs.
        case notANumber(String)
        /// A number is outside what the step accepts; `allowed` says what it accepts.
        case outOfRange(String, allowed: String)
        /// An argument is not a known value of this step (mode, filter, gravity, axis or flag).
        case unknownValue(String, expected: String)
        /// A colour is not `RRGGBBAA` or `RRGGBB` hex.
        case invalidColor(String)
        /// `extend` without a size has no `resize` or `crop:W:H` before it to take the size from.
        case noSizeBefore
        /// A `watermark` step, but the caller gave the parser no watermark image.
        case noWatermark
    }

    /// The step's position, from 1 (0 for ``Problem/emptySpec``).
    public var stepIndex: Int
    /// The step's text as written.
    public var step: String
    public var problem: Problem

    public init(stepIndex: Int, step: String, problem: Problem) {
        self.stepIndex = stepIndex
        self.step = step
        self.problem = problem
    }

    public var description: String {
        let what: String
        switch problem {
        case .emptySpec: return "the transform spec is empty"
        case .emptyStep: what = "the step is empty"
        case .unknownStep(let name): what = "'\(name)' is not a transform (\(TransformSpecError.stepNames))"
        case let .wrongArgumentCount(expected, got): what = "it takes \(expected), not \(got) argument\(got == 1 ? "" : "s")"
        case .notANumber(let text): what = "'\(text)' is not a number"
        case let .outOfRange(text, allowed): what = "\(text) is out of range (\(allowed))"
        case let .unknownValue(text, expected): what = "'\(text)' is not \(expected)"
        case .invalidColor(let text): what = "'\(text)' is not a colour (RRGGBBAA or RRGGBB hex)"
        case .noSizeBefore: what = "extend without W:H needs a resize or crop:W:H before it"
        case .noWatermark: what = "no watermark image is configured"
        }
        return "step \(stepIndex) '\(step)': \(what)"
    }

    /// The step names, for the description of ``Problem/unknownStep(_:)``.
    static let stepNames = "resize, crop, rotate, flip, orient, round, circle, blur, sharpen, tint, gray, pad, extend, background, trim, dpr, watermark"

    /// This error as the kernel's error (stage `transform`, code `invalid_argument`), for the CLI and
    /// the manager.
    public var kernelError: ImageKernelError {
        ImageKernelError(stage: .transform, plugin: "TransformSpec", code: .invalidArgument, message: description, cause: self)
    }
}
