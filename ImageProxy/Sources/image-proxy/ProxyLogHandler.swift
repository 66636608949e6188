#if canImport(Glibc)
import Glibc
#endif
import Logging

/// swift-log's `StreamLogHandler` on standard error, line for line, but with its metadata
/// formatted when a line is written rather than whenever it changes.
///
/// Hummingbird sets a request id on its logger for every request; `StreamLogHandler` formats
/// all of its metadata on each such change, lines written or not: about 5 µs of every request
/// (`perf`, `StreamLogHandler.prettify` under `Logger.subscript.setter`), a seventh of a cached
/// answer's whole CPU.
struct ProxyLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
        self.metadataProvider = LoggingSystem.metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { _, provided in provided } }
        if let explicit = event.metadata { all.merge(explicit) { _, explicit in explicit } }
        if let error = event.error {
            all["error.message"] = "\(error)"
            all["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        let pretty = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ")
        let line = "\(Self.timestamp()) \(event.level)\(label.isEmpty ? "" : " ")\(label):\(pretty) [\(event.source)] \(event.message)\n"
        // One write(2) per line: lines from several threads never interleave.
        var bytes = Array(line.utf8)
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + done, $0.count - done) }
            if wrote <= 0 { break }
            done += wrote
        }
    }

    /// Local time as `StreamLogHandler` writes it (`%Y-%m-%dT%H:%M:%S%z`).
    private static func timestamp() -> String {
        var now = time(nil)
        var local = tm()
        guard localtime_r(&now, &local) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
