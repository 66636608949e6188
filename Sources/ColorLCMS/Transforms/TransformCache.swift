import CLCMS
import ImageKernel

/// What a profile was made from, as a cache key: ICC bytes (compared whole), CICP code points,
/// or lcms's sRGB (RGB or gray).
enum ProfileSource: Hashable, Sendable {
    case icc([UInt8])
    case cicp(CICP, gray: Bool)
    case sRGB(gray: Bool)

    /// ICC bytes hashed as one block: the synthesised hash combines them one by one, about 17 K
    /// instructions for a 700-byte profile on every lookup (several a tagged render).
    func hash(into hasher: inout Hasher) {
        switch self {
        case .icc(let bytes):
            hasher.combine(0)
            hasher.combine(bytes.count)
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        case .cicp(let cicp, let gray):
            hasher.combine(1)
            hasher.combine(cicp)
            hasher.combine(gray)
        case .sRGB(let gray):
            hasher.combine(2)
            hasher.combine(gray)
        }
    }
}

/// Profiles, transforms and sRGB verdicts, built once and kept: an image service sees the same
/// few profiles all day. Bounded in count; an entry is built outside the lock (two threads may
/// build the same one at once, and one copy wins), so no lcms call runs under it.
final class TransformCache: Sendable {
    struct TransformKey: Hashable, Sendable {
        var source: ProfileSource
        var sourcePixels: UInt32
        var target: ProfileSource
        var targetPixels: UInt32
        var intent: RenderingIntent
        var blackPointCompensation: Bool
    }

    private struct State {
        var profiles: [ProfileSource: LCMSProfile] = [:]
        var transforms: [TransformKey: LCMSTransform] = [:]
        var isSRGB: [ProfileSource: Bool] = [:]
    }

    private let state = Locked(State())
    private let limit: Int
    let plugin: String
    /// Whether 8-bit RGB transforms between matrix/shaper profiles may take the direct path.
    let allowsDirect: Bool
    /// Runs (one per frame or CMYK call) by path: the direct path's, then lcms's.
    private let runs = Locked((direct: 0, lcms: 0))

    init(limit: Int, plugin: String, allowsDirect: Bool = true) {
        self.limit = limit
        self.plugin = plugin
        self.allowsDirect = allowsDirect
    }

    /// Counts one conversion run by the path it took.
    func countRun(direct: Bool) {
        runs.withLock { if direct { $0.direct += 1 } else { $0.lcms += 1 } }
    }

    var runCounts: (direct: Int, lcms: Int) { runs.withLock { $0 } }

    func profile(_ source: ProfileSource) throws(ImageKernelError) -> LCMSProfile {
        if let cached = state.withLock({ $0.profiles[source] }) { return cached }
        let made: LCMSProfile
        switch source {
        case .icc(let bytes): made = try LCMSProfile.icc(bytes, plugin: plugin)
        case .cicp(let cicp, let gray): made = try cicp.profile(gray: gray, plugin: plugin)
        case .sRGB(let gray): made = try gray ? CICP.sRGB.profile(gray: true, plugin: plugin) : LCMSProfile.sRGB(plugin: plugin)
        }
        state.withLock { state in
            if state.profiles.count >= limit { state.profiles.removeAll(keepingCapacity: true) }
            state.profiles[source] = made
        }
        return made
    }

    func transform(_ key: TransformKey) throws(ImageKernelError) -> LCMSTransform {
        if let cached = state.withLock({ $0.transforms[key] }) { return cached }
        let made = try LCMSTransform(
            from: try profile(key.source), clcms_pixels(key.sourcePixels), to: try profile(key.target), clcms_pixels(key.targetPixels),
            intent: key.intent, blackPointCompensation: key.blackPointCompensation, allowsDirect: allowsDirect, plugin: plugin)
        state.withLock { state in
            if state.transforms.count >= limit { state.transforms.removeAll(keepingCapacity: true) }
            state.transforms[key] = made
        }
        return made
    }

    /// Whether an RGB or gray ICC profile renders colours as sRGB does (within one level of
    /// 8-bit on a grid of test colours), remembered per profile. Many files carry an sRGB
    /// profile; converting through it would cost time and change nothing.
    func isSRGB(_ icc: [UInt8]) -> Bool {
        if let known = state.withLock({ $0.isSRGB[.icc(icc)] }) { return known }
        let verdict = (try? measureSRGB(icc)) ?? false
        state.withLock { state in
            if state.isSRGB.count >= limit { state.isSRGB.removeAll(keepingCapacity: true) }
            state.isSRGB[.icc(icc)] = verdict
        }
        return verdict
    }

    private func measureSRGB(_ icc: [UInt8]) throws(ImageKernelError) -> Bool {
        let profile = try profile(.icc(icc))
        let gray = profile.space == Int32(CLCMS_SPACE_GRAY.rawValue)
        guard gray || profile.space == Int32(CLCMS_SPACE_RGB.rawValue) else { return false }
        let levels: [UInt8] = [0, 16, 48, 96, 128, 160, 208, 255]
        var samples: [UInt8] = []
        if gray {
            samples = levels
        } else {
            for r in levels { for g in levels { for b in levels { samples += [r, g, b] } } }
        }
        let pixels = gray ? CLCMS_GRAY8 : CLCMS_RGB8
        let transform = try transform(TransformKey(
            source: .icc(icc), sourcePixels: pixels.rawValue, target: .sRGB(gray: gray), targetPixels: pixels.rawValue,
            intent: .relativeColorimetric, blackPointCompensation: false))
        var out = [UInt8](repeating: 0, count: samples.count)
        let count = samples.count / (gray ? 1 : 3)
        samples.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { destination in
                transform.run(source.baseAddress!, sourceStride: source.count, into: destination.baseAddress!, destinationStride: destination.count, width: count, rows: 1)
            }
        }
        return zip(samples, out).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
    }
}
