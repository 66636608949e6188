import Foundation
import ImageKernel
import Transformers

extension ImgproxyOptions {
    /// Applies one option, `name` with its arguments, as imgproxy's parser does (every option of
    /// the open-source edition and its short form).
    /// - Throws: ``ProxyError`` 404 `Invalid URL` for an unknown option or a bad argument, 403 for
    ///   a security option where ``ImgproxySettings/allowsSecurityOptions`` is off.
    mutating func apply(_ name: String, _ args: [String], settings: ImgproxySettings, usedPresets: [String] = []) throws(ProxyError) {
        let a = ImgproxyArguments(name: name, args: args)
        switch name {
        case "resize", "rs":
            try a.ensureMax(8)
            if !args[0].isEmpty { try apply("resizing_type", [args[0]], settings: settings) }
            if args.count > 1 { try apply("size", Array(args[1...]), settings: settings) }
        case "size", "s":
            try a.ensureMax(7)
            if args.count >= 1, !args[0].isEmpty { width = try a.positiveInt("width", args[0]) }
            if args.count >= 2, !args[1].isEmpty { height = try a.positiveInt("height", args[1]) }
            if args.count >= 3, !args[2].isEmpty { enlarge = ImgproxyArguments.bool(args[2]) }
            if args.count >= 4, !args[3].isEmpty { extend = try Self.extend(a, "extend", Array(args[3...])) }
        case "resizing_type", "rt":
            let value = try a.single()
            guard let type = ResizingType(rawValue: value) else {
                throw a.invalid("resizing_type", value, expected: ResizingType.allCases.map(\.rawValue).joined(separator: ", "))
            }
            resizingType = type
        case "width", "w": width = try a.positiveInt("width", try a.single())
        case "height", "h": height = try a.positiveInt("height", try a.single())
        case "min-width", "mw": minWidth = try a.positiveInt("min-width", try a.single())
        case "min-height", "mh": minHeight = try a.positiveInt("min-height", try a.single())
        case "zoom", "z":
            try a.ensureMax(2)
            zoomWidth = try a.positiveNonZeroFloat("zoom_width", args[0])
            zoomHeight = args.count < 2 ? zoomWidth : try a.positiveNonZeroFloat("zoom_height", args[1])
        case "dpr": dpr = try a.positiveNonZeroFloat("dpr", try a.single())
        case "enlarge", "el": enlarge = ImgproxyArguments.bool(try a.single())
        case "extend", "ex": extend = try Self.extend(a, "extend", args)
        case "extend_aspect_ratio", "extend_ar", "exar": extendAspectRatio = try Self.extend(a, "extend_aspect_ratio", args)
        case "gravity", "g": gravity = try a.gravity("gravity", args[...], allowed: GravityOption.Kind.crop)
        case "crop", "c":
            cropWidth = try a.positiveFloat("crop.width", args[0])
            if args.count > 1 { cropHeight = try a.positiveFloat("crop.height", args[1]) }
            if args.count > 2 { cropGravity = try a.gravity("crop.gravity", args[2...], allowed: GravityOption.Kind.crop) }
        case "trim", "t":
            try a.ensureMax(4)
            trimThreshold = args[0].isEmpty ? nil : try Self.float(a, "trim.threshold", args[0])
            trimColor = args.count > 1 && !args[1].isEmpty ? try a.hexColor("trim.color", args[1]) : nil
        case "padding", "pd":
            try a.ensureMax(4)
            func side(_ index: Int, _ key: String) throws(ProxyError) -> Int? {
                args.count > index && !args[index].isEmpty ? try a.positiveInt(key, args[index]) : nil
            }
            let top = try side(0, "padding.top") ?? padding.top
            let right = try side(1, "padding.right") ?? top
            let bottom = try side(2, "padding.bottom") ?? top
            let left = try side(3, "padding.left") ?? right
            padding = (top, right, bottom, left)
        case "auto_rotate", "ar": autoRotate = ImgproxyArguments.bool(try a.single())
        case "rotate", "rot":
            let value = try a.single()
            guard let angle = ImgproxyArguments.int(value) else { throw a.invalid("rotate", value, expected: "integer number") }
            guard angle % 90 == 0 else { throw .imgproxyInvalidURL("Rotation angle must be a multiple of 90") }
            rotate = angle
        case "flip", "fl":
            try a.ensureMax(2)
            if !args[0].isEmpty { flipHorizontal = ImgproxyArguments.bool(args[0]) }
            if args.count > 1, !args[1].isEmpty { flipVertical = ImgproxyArguments.bool(args[1]) }
        case "background", "bg": try applyBackground(a)
        case "blur", "bl": blur = try a.positiveFloat("blur", try a.single())
        case "sharpen", "sh": sharpen = try a.positiveFloat("sharpen", try a.single())
        case "pixelate", "pix": pixelate = try a.positiveInt("pixelate", try a.single())
        case "watermark", "wm": try applyWatermark(a)
        case "strip_metadata", "sm": stripMetadata = ImgproxyArguments.bool(try a.single())
        case "keep_copyright", "kcr": keepCopyright = ImgproxyArguments.bool(try a.single())
        case "strip_color_profile", "scp": stripColorProfile = ImgproxyArguments.bool(try a.single())
        case "preserve_hdr", "ph": preserveHDR = ImgproxyArguments.bool(try a.single())
        case "enforce_thumbnail", "eth": enforceThumbnail = ImgproxyArguments.bool(try a.single())
        case "quality", "q": quality = try a.quality("quality", try a.single())
        case "format_quality", "fq":
            guard args.count % 2 == 0 else { throw .imgproxyInvalidURL("Missing format_quality for: \(args.last ?? "")") }
            for index in stride(from: 0, to: args.count, by: 2) {
                formatQuality[try a.format("format_quality", args[index])] = try a.quality("format_quality", args[index + 1])
            }
        case "max_bytes", "mb": maxBytes = try a.positiveInt("max_bytes", try a.single())
        case "format", "f", "ext": format = try a.format("format", try a.single())
        case "skip_processing", "skp":
            for arg in args { skipProcessing.append(try a.format("skip_processing", arg)) }
        case "raw": raw = ImgproxyArguments.bool(try a.single())
        case "cachebuster", "cb":
            let value = try a.single()
            cacheBuster = value.isEmpty ? nil : value
        case "expires", "exp":
            let value = try a.single()
            guard let timestamp = ImgproxyArguments.int(value) else { throw a.invalid("expires", value, expected: "unix timestamp") }
            if timestamp > 0 && Double(timestamp) < Date().timeIntervalSince1970 { throw .imgproxyInvalidURL("Expired URL") }
            expires = timestamp
        case "filename", "fn": try applyFilename(a)
        case "return_attachment", "att": returnAttachment = ImgproxyArguments.bool(try a.single())
        case "preset", "pr":
            for preset in args {
                guard let options = settings.presets[preset] else { throw .imgproxyInvalidURL("Unknown preset: \(preset)") }
                guard !usedPresets.contains(preset) else { continue }  // a loop: imgproxy warns and skips it
                for (option, arguments) in options { try apply(option, arguments, settings: settings, usedPresets: usedPresets + [preset]) }
            }
        case "max_src_resolution", "msr":
            guard settings.allowsSecurityOptions else { throw .imgproxySecurityOptions }
            sourceLimits.pixels = try Self.megapixels(a, try a.single(), zeroAllowed: false)
        case "max_src_file_size", "msfs":
            guard settings.allowsSecurityOptions else { throw .imgproxySecurityOptions }
            let value = try a.single()
            guard let bytes = ImgproxyArguments.int(value), bytes >= 0 else { throw a.invalid("max_src_file_size", value, expected: "integer number") }
            sourceLimits.bytes = bytes == 0 ? nil : Int64(bytes)  // 0: no limit of the URL's own
        case "max_animation_frames", "maf":
            guard settings.allowsSecurityOptions else { throw .imgproxySecurityOptions }
            let value = try a.single()
            guard let frames = ImgproxyArguments.int(value), frames >= 1 else { throw a.invalid("max_animation_frames", value, expected: "positive integer number") }
            sourceLimits.frames = frames
        case "max_animation_frame_resolution", "mafr":
            guard settings.allowsSecurityOptions else { throw .imgproxySecurityOptions }
            sourceLimits.framePixels = try Self.megapixels(a, try a.single(), zeroAllowed: true)
        case "max_result_dimension", "mrd":
            guard settings.allowsSecurityOptions else { throw .imgproxySecurityOptions }
            let value = try a.single()
            guard let dimension = ImgproxyArguments.int(value) else { throw a.invalid("max_result_dimension", value, expected: "integer number") }
            maxResultDimension = dimension
        default:
            throw .imgproxyInvalidURL("Unknown processing option \(name)")
        }
    }

    private static func float(_ a: ImgproxyArguments, _ key: String, _ arg: String) throws(ProxyError) -> Double {
        guard let value = ImgproxyArguments.double(arg) else { throw a.invalidArgs() }
        return value
    }

    /// Megapixels (fractional allowed) as a pixel count; 0 only where `zeroAllowed`.
    private static func megapixels(_ a: ImgproxyArguments, _ arg: String, zeroAllowed: Bool) throws(ProxyError) -> Int {
        guard let value = ImgproxyArguments.double(arg), value.isFinite, zeroAllowed ? value >= 0 : value > 0, value <= 1_000_000 else {
            throw a.invalidArgs()
        }
        return Int((value * 1_000_000).rounded(.down))
    }

    private static func extend(_ a: ImgproxyArguments, _ key: String, _ args: [String]) throws(ProxyError) -> Extend {
        guard args.count <= 4 else { throw a.invalidArgs() }
        var extend = Extend()
        extend.enabled = ImgproxyArguments.bool(args[0])
        if args.count > 1 { extend.gravity = try a.gravity(key + ".gravity", args[1...], allowed: GravityOption.Kind.extend) }
        return extend
    }

    private mutating func applyBackground(_ a: ImgproxyArguments) throws(ProxyError) {
        switch a.args.count {
        case 1:
            background = a.args[0].isEmpty ? nil : try a.hexColor("background", a.args[0])
        case 3:
            var channels: [UInt8] = []
            for (index, text) in a.args.enumerated() {
                guard let value = ImgproxyArguments.int(text), (0...255).contains(value), !text.hasPrefix("-"), !text.hasPrefix("+") else {
                    throw a.invalid("background." + ["R", "G", "B"][index], text, expected: "number in range 0-255")
                }
                channels.append(UInt8(value))
            }
            background = RGBAColor(red: channels[0], green: channels[1], blue: channels[2], alpha: 255)
        default:
            throw a.invalidArgs()
        }
    }

    private mutating func applyWatermark(_ a: ImgproxyArguments) throws(ProxyError) {
        try a.ensureMax(7)
        guard let opacity = ImgproxyArguments.double(a.args[0]), (0...1).contains(opacity) else {
            throw a.invalid("watermark_opacity", a.args[0], expected: "number in range 0-1")
        }
        watermarkOpacity = opacity
        if a.args.count > 1, !a.args[1].isEmpty {
            watermarkPosition = try a.gravity("watermark_position", a.args[1...1], allowed: GravityOption.Kind.watermark)
        }
        if a.args.count > 2, !a.args[2].isEmpty { watermarkPosition.x = try Self.float(a, "watermark_x_offset", a.args[2]) }
        if a.args.count > 3, !a.args[3].isEmpty { watermarkPosition.y = try Self.float(a, "watermark_y_offset", a.args[3]) }
        if a.args.count > 4, !a.args[4].isEmpty { watermarkScale = try a.positiveNonZeroFloat("watermark_scale", a.args[4]) }
    }

    private mutating func applyFilename(_ a: ImgproxyArguments) throws(ProxyError) {
        try a.ensureMax(2)
        guard a.args.count > 1, !a.args[1].isEmpty, ImgproxyArguments.bool(a.args[1]) else {
            filename = ProxyRequest.percentDecoded(a.args[0]) ?? a.args[0]
            return
        }
        guard let data = ProxyRequest.base64URLDecoded(Substring(a.args[0])), let text = String(data: data, encoding: .utf8) else {
            throw a.invalid("filename", a.args[0], expected: "URL-safe base64-encoded string")
        }
        filename = text
    }
}
