import ArgumentParser
import Transformers

extension TransformSpec {
    /// Parses a `--transform` argument; a bad spec is a usage error naming the step.
    static func validated(_ text: String, threadLimit: Int = 0) throws -> TransformSpec {
        do {
            return try TransformSpec(parsing: text, threadLimit: threadLimit)
        } catch {
            throw ValidationError("--transform '\(text)': \(error.description)")
        }
    }
}
