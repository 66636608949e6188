/// Fixed-width text columns (Foundation's `String(format:)` ignores widths for `%@` on Linux).
public enum Table {
    /// `cells` padded to `widths`: right-aligned for positive widths, left-aligned for negative.
    public static func row(_ cells: [String], _ widths: [Int]) -> String {
        zip(cells, widths).map { cell, width in
            let padding = String(repeating: " ", count: max(0, abs(width) - cell.count))
            return width < 0 ? cell + padding : padding + cell
        }.joined(separator: "  ")
    }
}
