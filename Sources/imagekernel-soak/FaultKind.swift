import Foundation

/// What the fault server answers for one load.
enum FaultKind: String, CaseIterable, Sendable {
    case valid, resetMidBody, dropMidBody, stall, stallBody, clientError, serverError, rateLimited
    case shortLength, longLength, endlessBody, slowloris, redirectLoop, garbageStatus, hugeHeader

    /// How often each kind is drawn, out of the sum of all weights (valid images are the most
    /// common, so the disk cache fills and hits happen).
    var weight: Int {
        switch self {
        case .valid: 30
        case .stall, .stallBody, .longLength: 2
        default: 5
        }
    }

    /// The path and query on the fault server for file `name` (variant `variant` of a valid
    /// image, so repeated loads of one URL hit the caches).
    func path(file name: String, variant: Int) -> String {
        switch self {
        case .valid: "/files/\(name)?v=\(variant)"
        case .resetMidBody: "/reset/\(name)"
        case .dropMidBody: "/drop/\(name)"
        case .stall: "/stall"
        case .stallBody: "/stall-body/20000"
        case .clientError: "/status/404"
        case .serverError: "/status/500"
        case .rateLimited: "/status/429?Retry-After=1"
        case .shortLength: "/wrong-length/\(name)?by=-100"
        case .longLength: "/wrong-length/\(name)?by=100"
        case .endlessBody: "/endless"
        case .slowloris: "/files/\(name)?chunk=512&pace=20"
        case .redirectLoop: "/loop/a"
        case .garbageStatus: "/garbage"
        case .hugeHeader: "/huge-header/\(name)"
        }
    }

    /// The body a client receives whole for this kind, or nil when no whole body arrives.
    func servedBody(of file: Data) -> Data? {
        switch self {
        case .valid, .slowloris: file
        case .shortLength: file.prefix(max(0, file.count - 100))
        default: nil
        }
    }

    /// A kind drawn by weight.
    static func random(using generator: inout some RandomNumberGenerator) -> FaultKind {
        var pick = Int.random(in: 0..<allCases.reduce(0) { $0 + $1.weight }, using: &generator)
        for kind in allCases {
            if pick < kind.weight { return kind }
            pick -= kind.weight
        }
        return .valid
    }
}
