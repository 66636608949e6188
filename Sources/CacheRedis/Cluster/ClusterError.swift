import Foundation

/// The error replies by which a cluster node says "not here" or "not now" (the cluster
/// specification's redirections and transient states), told apart from a command's own errors.
enum ClusterError: Equatable {
    /// `MOVED slot host:port`: the slot lives there now; retry there and refresh the map.
    case moved(slot: Int, to: NodeAddress)
    /// `ASK slot host:port`: this one key is being migrated there; send `ASKING` and the command
    /// there once, and keep the map.
    case ask(slot: Int, to: NodeAddress)
    /// `TRYAGAIN`: a multi-key command during a migration, or a slot being handed over.
    case tryAgain
    /// `CLUSTERDOWN`: the cluster cannot serve the slot (a master lost, no replica promoted yet).
    case clusterDown
    /// `LOADING`: the node is loading its dataset after a restart.
    case loading
    /// `READONLY`: a write reached a node that is a replica now (a failover the map has not seen).
    case readOnly
    /// `MASTERDOWN`: a replica lost its link to the master and does not serve stale reads.
    case masterDown

    /// The cluster condition an error reply reports; nil for any other error.
    init?(_ message: String) {
        let parts = message.split(separator: " ", maxSplits: 3)
        switch parts.first {
        case "MOVED", "ASK":
            guard parts.count >= 3, let slot = Int(parts[1]), (0..<HashSlot.count).contains(slot), let address = NodeAddress(parts[2]) else { return nil }
            self = parts[0] == "MOVED" ? .moved(slot: slot, to: address) : .ask(slot: slot, to: address)
        case "TRYAGAIN": self = .tryAgain
        case "CLUSTERDOWN": self = .clusterDown
        case "LOADING": self = .loading
        case "READONLY": self = .readOnly
        case "MASTERDOWN": self = .masterDown
        default: return nil
        }
    }
}
