/// `--name VALUE` options of a benchmark's command line.
public enum Options {
    /// The text after `name`, or nil when it is missing.
    public static func string(_ name: String, in arguments: [String] = CommandLine.arguments) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// The integer after `name`, or `fallback` when it is missing or not a number.
    public static func int(_ name: String, _ fallback: Int, in arguments: [String] = CommandLine.arguments) -> Int {
        string(name, in: arguments).flatMap(Int.init) ?? fallback
    }
}
