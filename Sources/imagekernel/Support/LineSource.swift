import Foundation

/// The sources of a `--from` list, read a line at a time as the prefetcher asks for them, so a
/// list of millions of URLs is never held in memory. Blank lines and lines starting with `#` are
/// skipped; each line becomes a URL as ``Sources/url(for:)`` makes it.
struct LineSource: Sequence, Sendable {
    /// The file to read, or nil for standard input.
    let path: String?

    /// Fails when the file cannot be opened.
    init(path: String?) throws {
        if let path, access(path, R_OK) != 0 { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        self.path = path
    }

    /// How many sources the file lists (one streaming pass); nil for standard input.
    func count() -> Int? {
        guard path != nil else { return nil }
        var lines = Lines(path: path)
        var count = 0
        while lines.nextSource() != nil { count += 1 }
        return count
    }

    func makeIterator() -> Iterator { Iterator(lines: Lines(path: path)) }

    struct Iterator: IteratorProtocol {
        fileprivate var lines: Lines
        mutating func next() -> URL?? {
            guard let line = lines.nextSource() else { return nil }
            return .some(Sources.url(for: line))
        }
    }

    /// `getline` over a `FILE`, closed when the last copy goes away.
    fileprivate struct Lines {
        private final class File {
            let handle: UnsafeMutablePointer<FILE>?
            var buffer: UnsafeMutablePointer<CChar>?
            var capacity = 0
            init(path: String?) {
                handle = path.map { fopen($0, "r") } ?? fdopen(dup(STDIN_FILENO), "r")
            }
            deinit {
                free(buffer)
                if let handle { fclose(handle) }
            }
        }
        private let file: File

        init(path: String?) { file = File(path: path) }

        /// The next line that names a source, trimmed.
        mutating func nextSource() -> String? {
            guard let handle = file.handle else { return nil }
            while getline(&file.buffer, &file.capacity, handle) >= 0 {
                guard let buffer = file.buffer else { continue }
                let line = String(cString: buffer).trimmingCharacters(in: .whitespacesAndNewlines)
                if !line.isEmpty && !line.hasPrefix("#") { return line }
            }
            return nil
        }
    }
}
