import CoderHEIF
import Foundation
import ImageKernel

/// Builds a grid HEIC (the layout phones write: a canvas of 512x512 HEVC tiles) by hand, since
/// libheif 1.15 has no API to encode grids. Each tile is encoded by CoderHEIF as a file of its
/// own; its `hvcC` box and coded data (the `mdat` payload) are copied into one file with a
/// `grid` item whose `dimg` references list the tiles, row by row.
enum GridFile {
    static func make(from image: Image, tile: Int, coder: HEIFCoder) throws -> Data {
        let columns = (image.width + tile - 1) / tile, rows = (image.height + tile - 1) / tile
        var hvcC = Data()
        var tiles: [Data] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let file = try coder.encode(crop(image, x: column * tile, y: row * tile, side: tile), as: .heic, options: EncodeOptions(quality: 0.8))
                hvcC = box(named: "hvcC", in: file, header: true)
                tiles.append(box(named: "mdat", in: file, header: false))
            }
        }
        return assemble(tiles: tiles, hvcC: hvcC, tile: tile, rows: rows, columns: columns, width: image.width, height: image.height)
    }

    /// A `side`x`side` tile from (x, y), edge pixels repeated past the image.
    static func crop(_ image: Image, x: Int, y: Int, side: Int) throws -> Image {
        var pixels = [UInt8](repeating: 0, count: side * side * 3)
        for ty in 0..<side {
            for tx in 0..<side {
                let sx = min(image.width - 1, x + tx), sy = min(image.height - 1, y + ty)
                for c in 0..<3 { pixels[(ty * side + tx) * 3 + c] = image.pixels[sy * image.bytesPerRow + sx * 3 + c] }
            }
        }
        return try Image(width: side, height: side, pixelFormat: .rgb8, pixels: pixels)
    }

    /// The first top-level or nested box of that type, found by its name (fine for libheif's own
    /// small files): with its 8-byte header, or its payload only.
    static func box(named name: String, in file: Data, header: Bool) -> Data {
        let bytes = [UInt8](file)
        let range = file.firstRange(of: Data(name.utf8))!
        let start = range.lowerBound - 4
        let size = Int(bytes[start]) << 24 | Int(bytes[start + 1]) << 16 | Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
        return Data(bytes[(header ? start : start + 8)..<(start + size)])
    }

    static func assemble(tiles: [Data], hvcC: Data, tile: Int, rows: Int, columns: Int, width: Int, height: Int) -> Data {
        let gridID = 1, firstTile = 2
        var grid = Data([0, 1, UInt8(rows - 1), UInt8(columns - 1)])  // version 0, 32-bit sizes
        grid.append(be32(width)); grid.append(be32(height))
        var infe = Data()
        infe.append(fullBox("infe", version: 2, flags: 0, be16(gridID) + be16(0) + Data("grid".utf8) + Data([0])))
        for i in tiles.indices { infe.append(fullBox("infe", version: 2, flags: 1, be16(firstTile + i) + be16(0) + Data("hvc1".utf8) + Data([0]))) }
        let iinf = fullBox("iinf", version: 0, flags: 0, be16(1 + tiles.count) + infe)
        let iref = fullBox("iref", version: 0, flags: 0, plainBox("dimg", be16(gridID) + be16(tiles.count) + tiles.indices.reduce(Data()) { $0 + be16(firstTile + $1) }))
        let ipco = plainBox("ipco", hvcC + fullBox("ispe", version: 0, flags: 0, be32(tile) + be32(tile)) + fullBox("ispe", version: 0, flags: 0, be32(width) + be32(height)))
        var associations = be16(gridID) + Data([1, 0x80 | 3])
        for i in tiles.indices { associations += be16(firstTile + i) + Data([2, 0x80 | 1, 0x80 | 2]) }
        let ipma = fullBox("ipma", version: 0, flags: 0, be32(1 + tiles.count) + associations)
        let fixed = fullBox("hdlr", version: 0, flags: 0, be32(0) + Data("pict".utf8) + Data(repeating: 0, count: 13))
            + fullBox("pitm", version: 0, flags: 0, be16(gridID)) + iinf + iref + plainBox("iprp", ipco + ipma) + plainBox("idat", grid)
        let ftyp = plainBox("ftyp", Data("heic".utf8) + be32(0) + Data("mif1heic".utf8))
        // iloc v1: 4-byte offsets and lengths, no base offset; every item one extent.
        func iloc(mdatStart: Int) -> Data {
            var body = Data([0x44, 0x00]) + be16(1 + tiles.count)
            body += be16(gridID) + be16(1) + be16(0) + be16(1) + be32(0) + be32(grid.count)
            var offset = mdatStart
            for (i, data) in tiles.enumerated() {
                body += be16(firstTile + i) + be16(0) + be16(0) + be16(1) + be32(offset) + be32(data.count)
                offset += data.count
            }
            return fullBox("iloc", version: 1, flags: 0, body)
        }
        let metaSize = fullBox("meta", version: 0, flags: 0, fixed + iloc(mdatStart: 0)).count
        let meta = fullBox("meta", version: 0, flags: 0, fixed + iloc(mdatStart: ftyp.count + metaSize + 8))
        return ftyp + meta + plainBox("mdat", tiles.reduce(Data(), +))
    }

    static func be16(_ v: Int) -> Data { Data([UInt8(v >> 8 & 255), UInt8(v & 255)]) }
    static func be32(_ v: Int) -> Data { Data([UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)]) }
    static func plainBox(_ type: String, _ body: Data) -> Data { be32(8 + body.count) + Data(type.utf8) + body }
    static func fullBox(_ type: String, version: UInt8, flags: Int, _ body: Data) -> Data {
        plainBox(type, Data([version, UInt8(flags >> 16 & 255), UInt8(flags >> 8 & 255), UInt8(flags & 255)]) + body)
    }
}
