import CLCMS
import ImageKernel

/// A parsed or built lcms profile, freed with its last reference. Immutable once made, so
/// transforms on several threads may share it.
final class LCMSProfile: @unchecked Sendable {
    // @unchecked: `handle` is set once and only read (by lcms, which does not mutate a profile
    // while building transforms from it).
    let handle: OpaquePointer
    /// The data colour space (`CLCMS_SPACE_*`).
    let space: Int32

    private init(_ handle: OpaquePointer) {
        self.handle = handle
        space = clcms_profile_space(handle)
    }

    deinit { clcms_profile_free(handle) }

    /// Runs `make` with an error buffer and wraps what it returns, or throws lcms's reason.
    static func make(
        _ what: String, plugin: String, code: ImageKernelError.Code = .corruptData,
        _ make: (UnsafeMutablePointer<CChar>, Int) -> OpaquePointer?
    ) throws(ImageKernelError) -> LCMSProfile {
        var error = [CChar](repeating: 0, count: 256)
        let handle = error.withUnsafeMutableBufferPointer { make($0.baseAddress!, $0.count) }
        guard let handle else {
            let reason = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageKernelError(stage: .transform, plugin: plugin, code: code, message: "\(what): \(reason)")
        }
        return LCMSProfile(handle)
    }

    /// The profile of ICC bytes.
    static func icc(_ bytes: [UInt8], plugin: String) throws(ImageKernelError) -> LCMSProfile {
        try make("the embedded ICC profile (\(bytes.count) bytes) cannot be used", plugin: plugin) { error, size in
            bytes.withUnsafeBytes { clcms_profile_from_icc($0.baseAddress, $0.count, error, size) }
        }
    }

    static func sRGB(plugin: String) throws(ImageKernelError) -> LCMSProfile {
        try make("sRGB", plugin: plugin, code: .internalError) { clcms_profile_srgb($0, $1) }
    }

    /// The profile serialised as ICC bytes (what a converted image carries for a built target).
    func iccBytes() -> [UInt8]? {
        let size = clcms_profile_save(handle, nil, 0)
        guard size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        let written = bytes.withUnsafeMutableBytes { clcms_profile_save(handle, $0.baseAddress, size) }
        return written == size ? bytes : nil
    }

    /// Whether lcms can use the profile as a transform's input (or output).
    func isUsable(asOutput: Bool) -> Bool { clcms_profile_usable(handle, asOutput ? 1 : 0) != 0 }
}
