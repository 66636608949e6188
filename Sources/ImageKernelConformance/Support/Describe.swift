import Foundation
import ImageKernel

/// Short, log-friendly descriptions of inputs for ``ConformanceFailure/input``.
enum Describe {
    /// `'name' (1234 bytes: 89 50 4e 47 0d 0a 1a 0a 00 00 00 0d 49 48 44 52…)`
    static func bytes(_ name: String, _ data: Data) -> String {
        let head = data.prefix(16).map { String(format: "%02x", $0) }.joined(separator: " ")
        let more = data.count > 16 ? "…" : ""
        return "'\(name)' (\(data.count) bytes\(data.isEmpty ? "" : ": \(head)\(more)"))"
    }

    /// `image 'gradient' 33x17 rgba8, 132 bytes per row`
    static func image(_ name: String, _ image: Image) -> String {
        "image '\(name)' \(image.width)x\(image.height) \(image.pixelFormat), \(image.bytesPerRow) bytes per row"
    }

    /// Only the facts that matter when two images differ.
    static func summary(_ image: Image) -> String {
        "\(image.width)x\(image.height) \(image.pixelFormat) (\(image.bytesPerRow) bytes per row, \(image.pixels.count) bytes)"
    }
}

/// Structural checks every image handed out by a plugin must pass.
enum ImageShape {
    /// Why the image's buffer does not hold what its fields promise, or nil when it does.
    static func problem(_ image: Image) -> String? {
        guard image.width > 0, image.height > 0 else {
            return "the image has a non-positive size \(image.width)x\(image.height)"
        }
        let tight = image.width * image.pixelFormat.bytesPerPixel
        guard image.bytesPerRow >= tight else {
            return "bytesPerRow \(image.bytesPerRow) is less than width × bytes per pixel (\(tight))"
        }
        guard image.pixels.count >= image.bytesPerRow * image.height else {
            return "the pixel buffer has \(image.pixels.count) bytes, fewer than bytesPerRow × height (\(image.bytesPerRow * image.height))"
        }
        for (index, frame) in image.frames.enumerated() {
            if let problem = problem(frame.image) { return "frame \(index + 1): \(problem)" }
        }
        return nil
    }

    /// The image as straight RGBA8, exactly `width × height × 4` bytes (a buffer with spare
    /// bytes after the last row is trimmed rather than compared).
    static func rgba8(_ image: Image) -> [UInt8] {
        let pixels = image.rgba8Pixels()
        let count = image.width * image.height * 4
        return pixels.count > count ? Array(pixels.prefix(count)) : pixels
    }
}
