/// Which part of an image a crop keeps: the centre, an edge's middle or a corner.
public enum Gravity: String, Sendable, Hashable, CaseIterable {
    case centre, north, south, east, west, northEast = "northeast", northWest = "northwest", southEast = "southeast", southWest = "southwest"

    /// Parses a gravity: the names above, `center`, or imgproxy's short forms (`ce`, `no`, `so`,
    /// `ea`, `we`, `noea`, `nowe`, `soea`, `sowe`), case-insensitively.
    public init?(name: String) {
        switch name.lowercased() {
        case "centre", "center", "ce": self = .centre
        case "north", "no", "top": self = .north
        case "south", "so", "bottom": self = .south
        case "east", "ea", "right": self = .east
        case "west", "we", "left": self = .west
        case "northeast", "noea": self = .northEast
        case "northwest", "nowe": self = .northWest
        case "southeast", "soea": self = .southEast
        case "southwest", "sowe": self = .southWest
        default: return nil
        }
    }

    /// Where the kept region sits along x and y: 0 (left/top), 0.5 (middle) or 1 (right/bottom).
    var anchor: (x: Double, y: Double) {
        switch self {
        case .centre: (0.5, 0.5)
        case .north: (0.5, 0)
        case .south: (0.5, 1)
        case .east: (1, 0.5)
        case .west: (0, 0.5)
        case .northEast: (1, 0)
        case .northWest: (0, 0)
        case .southEast: (1, 1)
        case .southWest: (0, 1)
        }
    }
}
