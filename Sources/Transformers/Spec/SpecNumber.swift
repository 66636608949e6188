/// How numbers are written in normalised spec keys: integers without a fraction (`2`, not `2.0`),
/// other values in Swift's shortest round-tripping form (`1.5`).
enum SpecNumber {
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
