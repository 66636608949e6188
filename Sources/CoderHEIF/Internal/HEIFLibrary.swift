import CLibHEIF

/// libheif's one-time initialisation (plugin loading), done once per process before first use.
enum HEIFLibrary {
    /// Swift runs a global's initialiser once, thread-safely, on first access.
    private static let initialised: Bool = {
        _ = heif_init(nil)
        return true
    }()

    static func ensureInitialised() {
        _ = initialised
    }

    /// The version of the linked libheif, e.g. `"1.15.1"`.
    static var version: String { String(cString: heif_get_version()) }
}
