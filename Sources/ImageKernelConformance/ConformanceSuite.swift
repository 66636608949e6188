/// What every conformance suite in this module has in common.
///
/// A suite checks one plugin against the implementation requirements of one kernel protocol. Its
/// cases are a `CaseIterable` enum, so a caller can run all of them, a chosen few, or one, and a
/// suite's own tests can prove that every case is able to fail.
///
/// Suites import no test framework: a failure is a thrown ``ConformanceFailure`` that names the
/// case and the input, and ``run(_:)`` throws a ``ConformanceReport`` listing every failed case.
/// Suites keep no global state; each run works on its own values.
public protocol ConformanceSuite: Sendable {
    /// The cases of this suite.
    associatedtype Case: CaseIterable, RawRepresentable, Hashable, Sendable where Case.RawValue == String

    /// The suite's name as it appears in failures, e.g. `"CoderConformance"`.
    static var suiteName: String { get }

    /// Runs one case; throws the first problem it finds.
    func run(case: Case) async throws(ConformanceFailure)
}

extension ConformanceSuite {
    /// Runs the cases in order and returns every failure (empty when the plugin conforms).
    public func failures(_ cases: [Case] = Array(Case.allCases)) async -> [ConformanceFailure] {
        var failures: [ConformanceFailure] = []
        for testCase in cases {
            do {
                try await run(case: testCase)
            } catch {
                failures.append(error)
            }
        }
        return failures
    }

    /// Runs the cases in order (all of them by default); throws a ``ConformanceReport`` listing
    /// every case that failed.
    public func run(_ cases: [Case] = Array(Case.allCases)) async throws(ConformanceReport) {
        let failures = await failures(cases)
        if !failures.isEmpty { throw ConformanceReport(suite: Self.suiteName, failures: failures) }
    }
}

/// Builds failures for one case of one suite.
struct CaseContext: Sendable {
    let suite: String
    let caseName: String

    init<S: ConformanceSuite>(_ suite: S.Type, _ testCase: S.Case) {
        self.suite = S.suiteName
        self.caseName = testCase.rawValue
    }

    func failure(_ input: String, _ message: String, underlying: (any Error & Sendable)? = nil) -> ConformanceFailure {
        ConformanceFailure(suite: suite, caseName: caseName, input: input, message: message, underlying: underlying)
    }
}
