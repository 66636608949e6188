/// One failed conformance case: which suite, which case, on which input, and why.
///
/// Every suite in this module reports a broken contract by throwing this error (or a
/// ``ConformanceReport`` of several). It imports no test framework, so you can throw it from
/// Swift Testing, XCTest or a command-line checker alike; its ``description`` is meant to be read
/// in a test log.
public struct ConformanceFailure: Error, CustomStringConvertible, Sendable {
    /// The suite that failed, e.g. `"CoderConformance"`.
    public var suite: String
    /// The raw value of the case that failed, e.g. `"rejectsTruncatedInput"`.
    public var caseName: String
    /// What was fed to the plugin when it failed: a fixture name with its size and first bytes,
    /// a URL, a cache key, an image's size and pixel format…
    public var input: String
    /// What the plugin did and what the contract asks instead.
    public var message: String
    /// The error the plugin threw, when that is part of the failure.
    public var underlying: (any Error & Sendable)?

    /// Creates a failure.
    public init(suite: String, caseName: String, input: String, message: String, underlying: (any Error & Sendable)? = nil) {
        self.suite = suite
        self.caseName = caseName
        self.input = input
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        var text = "\(suite).\(caseName) failed on \(input): \(message)"
        if let underlying { text += " (plugin error: \(underlying))" }
        return text
    }
}

/// Every failure of one ``ConformanceSuite/run(_:)`` call, in case order.
///
/// Thrown only when at least one case failed. Each element names its case and its input.
public struct ConformanceReport: Error, CustomStringConvertible, Sendable {
    /// The suite that ran.
    public var suite: String
    /// The failures, one per failed case, in the order the cases ran.
    public var failures: [ConformanceFailure]

    /// Creates a report.
    public init(suite: String, failures: [ConformanceFailure]) {
        self.suite = suite
        self.failures = failures
    }

    /// The names of the cases that failed.
    public var failedCases: [String] { failures.map(\.caseName) }

    public var description: String {
        let lines = failures.map { "  - \($0)" }.joined(separator: "\n")
        return "\(suite): \(failures.count) case(s) failed:\n\(lines)"
    }
}
