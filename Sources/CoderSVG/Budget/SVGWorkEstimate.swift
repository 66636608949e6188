/// An upper estimate of what rendering a document costs librsvg 2.54, from a ``SVGScan``, in
/// *work units* (about a nanosecond of one core each, measured on librsvg 2.54.7 and cairo 1.16).
///
/// librsvg and cairo cannot be interrupted once `rsvg_handle_render_document` runs, so the
/// only way to keep a render short is to refuse, before it starts, a document that would run
/// long. The estimate is deliberately pessimistic:
/// - Every element instance costs ``elementCost``, counting the copies that references make:
///   `<use>` and every other `href="#id"`, and every `url(#id)` in an attribute, a `style`
///   attribute or a stylesheet rule (fill and stroke paint servers, markers — once per vertex
///   of the shape —, masks, clip paths, filters). A reference cycle counts once (librsvg refuses
///   cycles itself).
/// - An element that renders through an offscreen layer (opacity, filter, mask, clip-path,
///   mix-blend-mode, isolation) costs ``layerCost`` per canvas pixel, per instance: librsvg 2.54
///   makes each layer the size of the canvas. Filters are never larger than the canvas either
///   (librsvg clips the filter region to it), so each primitive of an applied filter costs its
///   own per-pixel figure times the canvas (see ``primitiveCost(_:units:)``).
/// - Definitions (`defs`, `filter`, `marker`, `pattern`, `mask`, `clipPath`, `symbol`, gradients)
///   cost their pixels only where they are referenced.
/// - Stylesheet rules are matched by the last compound selector's type, classes and id; a
///   selector the scan cannot read (attributes, pseudo-classes, `*`) matches every element.
/// - Raster images in `data:` URLs cost their pixels (gdk-pixbuf decodes them whole); an SVG in a
///   `data:` URL is refused, since it is a document this estimate cannot see into.
struct SVGWorkEstimate {
    /// Per element instance (a rect: 3 µs measured; a `<use>` clone, 6 µs, counts as two).
    static let elementCost = 3000.0
    /// Per canvas pixel for each offscreen layer (allocation, clearing and compositing).
    static let layerCost = 10.0
    /// Per canvas pixel for applying a filter at all (its surfaces and colour conversion).
    static let filterBaseCost = 40.0
    /// Per pixel of a raster image in a `data:` URL (decoding and scaling it).
    static let imagePixelCost = 20.0
    /// librsvg 2.54 panics (and so aborts the process) on an feConvolveMatrix of more than
    /// 20 × 20: such a kernel is refused before librsvg sees it.
    static let maxConvolveOrder = 20

    enum Failure: Error {
        case unsupported(String)
    }

    /// Fixed work (not proportional to the canvas), summed over instances.
    private(set) var fixed = 0.0
    /// Work per canvas pixel, summed over instances.
    private(set) var perPixel = 0.0
    /// Element instances, references followed.
    private(set) var instances = 0.0

    /// The total for a canvas of `pixels` pixels.
    func total(canvasPixels pixels: Double) -> Double { fixed + perPixel * pixels }

    /// Where the per-pixel cost of kernels (feMorphology's radius) meets the canvas.
    struct Geometry {
        /// Canvas pixels per user unit of the root element.
        var deviceScale: Double
        /// The canvas's sides in pixels: no kernel reaches further.
        var canvasWidth: Double
        var canvasHeight: Double
        /// The root's user space's longer side (for `primitiveUnits="objectBoundingBox"`).
        var userExtent: Double
    }

    init(_ scan: SVGScan, geometry: Geometry) throws(Failure) {
        let elements = scan.elements
        var ids: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            if let id = element.attribute("id"), ids[id] == nil { ids[id] = index }
        }
        let rules = CSSRules(scan.css)
        // Each edge multiplies the target's instances by `times` and its per-pixel work by
        // `pixelTimes`: 0 for a child that only renders when referenced (a filter in defs).
        var edges = [[(target: Int, times: Double, pixelTimes: Double)]](repeating: [], count: elements.count)
        var ownPixel = [Double](repeating: 0, count: elements.count)
        var ownFixed = [Double](repeating: Self.elementCost, count: elements.count)
        for (index, element) in elements.enumerated() {
            if element.parent >= 0 { edges[element.parent].append((index, 1, Self.rendersInPlace(element) ? 1 : 0)) }
            var style = Declarations()
            for rule in rules.matching(element) { style.merge(rule) }
            for attribute in element.attributes {
                if attribute.name == "style" { style.read(attribute.value) } else { style.add(String(attribute.name), attribute.value) }
            }
            if let href = element.attribute("href") {
                let trimmed = href.drop { $0.isWhitespace }
                if trimmed.hasPrefix("#"), let target = ids[String(trimmed.dropFirst())] {
                    edges[index].append((target, 1, 1))
                } else if trimmed.lowercased().hasPrefix("data:") {
                    ownFixed[index] += try Self.dataURLCost(trimmed)
                }
            }
            let vertices = Self.vertices(of: element)
            for reference in style.references {
                guard let target = ids[reference.id] else { continue }
                let times = reference.isMarker ? vertices : 1
                edges[index].append((target, times, times))
            }
            ownPixel[index] = (style.makesLayer ? Self.layerCost : 0) + (style.hasFilter ? Self.filterBaseCost : 0)
            if element.name.hasPrefix("fe") {
                let units = element.parent >= 0 ? elements[element.parent].attribute("primitiveUnits") : nil
                ownPixel[index] += try Self.primitiveCost(element, units: units, geometry: geometry)
            }
        }
        // Post-order over children and references, iteratively (reference chains may be long);
        // a node met again while in progress is a cycle and adds nothing.
        var state = [UInt8](repeating: 0, count: elements.count)
        var count = [Double](repeating: 0, count: elements.count)
        var pixel = [Double](repeating: 0, count: elements.count)
        var fixedSum = [Double](repeating: 0, count: elements.count)
        for root in elements.indices where elements[root].parent < 0 {
            var stack: [(node: Int, edge: Int)] = [(root, 0)]
            state[root] = 1
            while let (node, edge) = stack.last {
                if edge < edges[node].count {
                    stack[stack.count - 1].edge += 1
                    let next = edges[node][edge].target
                    if state[next] == 0 {
                        state[next] = 1
                        stack.append((next, 0))
                    }
                    continue
                }
                var c = 1.0, p = ownPixel[node], f = ownFixed[node]
                for (target, times, pixelTimes) in edges[node] where state[target] == 2 {
                    c += times * count[target]
                    p += pixelTimes * pixel[target]
                    f += times * fixedSum[target]
                }
                (count[node], pixel[node], fixedSum[node]) = (min(c, 1e30), min(p, 1e30), min(f, 1e30))
                state[node] = 2
                stack.removeLast()
            }
            instances += count[root]
            perPixel += pixel[root]
            fixed += fixedSum[root]
        }
    }

    /// Elements drawn only where something refers to them (their instances still count).
    static let referencedOnly: Set<Substring> = [
        "defs", "filter", "marker", "pattern", "mask", "clipPath", "symbol", "linearGradient", "radialGradient", "style", "title",
        "desc", "metadata",
    ]

    /// Whether an element's pixels count where it stands in the tree.
    static func rendersInPlace(_ element: ScannedElement) -> Bool { !referencedOnly.contains(element.name) }

    /// Work per canvas pixel of one filter primitive, measured on librsvg 2.54.7 (1000² canvas).
    static func primitiveCost(_ element: ScannedElement, units: String?, geometry: Geometry) throws(Failure) -> Double {
        func numbers(_ name: String) -> [Double] {
            (element.attribute(name) ?? "").split { $0 == " " || $0 == "," || $0 == "\n" || $0 == "\t" }.compactMap { Double($0) }
        }
        switch element.name {
        case "feGaussianBlur", "feDiffuseLighting", "feSpecularLighting":
            return 150  // a blur is three box passes each way, 75-150 ns a pixel whatever its radius
        case "feTurbulence":
            let octaves = numbers("numOctaves").first ?? 1
            return 40 + 120 * max(1, min(octaves.isFinite ? octaves : 1e9, 1e9))
        case "feConvolveMatrix":
            let order = try convolveOrder(element)
            return 40 + 6 * max(1, order.x) * max(1, order.y)
        case "feMorphology":
            // A naive (2r+1)² window per pixel in librsvg 2.54.
            let radius = numbers("radius")
            let rx = abs(radius.first ?? 0), ry = abs(radius.count > 1 ? radius[1] : rx)
            let scale = units == "objectBoundingBox" ? geometry.userExtent * geometry.deviceScale : geometry.deviceScale
            let wx = min(2 * rx * scale + 1, geometry.canvasWidth), wy = min(2 * ry * scale + 1, geometry.canvasHeight)
            return 40 + 2 * (wx.isFinite ? wx : geometry.canvasWidth) * (wy.isFinite ? wy : geometry.canvasHeight)
        case "feDisplacementMap":
            return 60
        case "feBlend", "feColorMatrix", "feComponentTransfer", "feComposite", "feFlood", "feImage", "feMerge", "feOffset", "feTile",
            "feDropShadow":
            return 40
        default:
            return 0  // light sources, transfer functions and merge nodes: parameters of a primitive
        }
    }

    /// Refuses what librsvg 2.54 cannot be given at all: it reads attributes while parsing, and
    /// an feConvolveMatrix past 20 × 20 panics there (a Rust panic across the C API aborts).
    static func checkBeforeParsing(_ scan: SVGScan) throws(Failure) {
        for element in scan.elements where element.name == "feConvolveMatrix" { _ = try convolveOrder(element) }
    }

    /// feConvolveMatrix's `order` (default 3, one number for both).
    static func convolveOrder(_ element: ScannedElement) throws(Failure) -> (x: Double, y: Double) {
        let order = (element.attribute("order") ?? "").split { $0 == " " || $0 == "," || $0.isWhitespace }.compactMap { Double($0) }
        let x = order.first ?? 3, y = order.count > 1 ? order[1] : x
        guard x <= Double(maxConvolveOrder), y <= Double(maxConvolveOrder) else {
            throw .unsupported("an feConvolveMatrix of order \(Int(min(x, 1e9)))x\(Int(min(y, 1e9))) (librsvg 2.54 aborts past \(maxConvolveOrder))")
        }
        return (x, y)
    }

    /// Vertices of a shape that markers are drawn at: numbers in `d` or `points` over two, plus one.
    static func vertices(of element: ScannedElement) -> Double {
        guard let data = element.attribute("d") ?? element.attribute("points") else { return 2 }
        var numbers = 0
        var inNumber = false
        for c in data.utf8 {
            let digit = (c >= 0x30 && c <= 0x39) || c == 0x2E
            if digit && !inNumber { numbers += 1 }
            inNumber = digit || (inNumber && (c == 0x65 || c == 0x45))
        }
        return Double(numbers / 2 + 1)
    }

    /// The cost of a `data:` URL image: its pixels for PNG, JPEG and GIF; an SVG or a format whose
    /// size cannot be read from its header is refused.
    static func dataURLCost(_ url: Substring) throws(Failure) -> Double {
        let lowered = url.prefix(64).lowercased()
        if lowered.hasPrefix("data:image/svg") {
            throw .unsupported("an SVG in a data: URL (a nested document the budget cannot see into)")
        }
        guard let comma = url.firstIndex(of: ","), url[..<comma].lowercased().hasSuffix(";base64") else {
            throw .unsupported("a data: URL image that is not base64")
        }
        let head = Base64Prefix.decode(url[url.index(after: comma)...].prefix(87_384))
        guard let size = RasterHeader.size(head) else {
            throw .unsupported("a data: URL image whose size cannot be read (PNG, JPEG and GIF are)")
        }
        return size.width * size.height * imagePixelCost
    }
}
