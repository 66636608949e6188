// thumbnailer: decode each image straight to a thumbnail and write it as PNG.
// Usage: thumbnailer [--size WxH] [--out DIR] FILE...
import CoderPNG
import Foundation
import ImageKernel
import LoaderFile

var arguments = Array(CommandLine.arguments.dropFirst())
var box = PixelSize(width: 128, height: 128)
var outDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnails")
while let flag = arguments.first, flag.hasPrefix("--"), arguments.count >= 2 {
    if flag == "--size", let size = PixelSize(parsing: arguments[1]) { box = size }
    if flag == "--out" { outDirectory = URL(fileURLWithPath: arguments[1]) }
    arguments.removeFirst(2)
}
try FileManager.default.createDirectory(at: outDirectory, withIntermediateDirectories: true)

let manager = ImageManager(configuration: .init(
    loaders: LoaderRegistry([FileLoader()]),
    coders: CoderRegistry([PNGCoder()])))  // register JPEGCoder()/HEIFCoder() here when linked
var context = ImageContext()
context.thumbnailPixelSize = box

for path in arguments {
    do {
        let result = try await manager.image(for: URL(fileURLWithPath: path), context: context)
        guard let image = result.image else { continue }
        let png = try manager.coders.encode(image, as: .png)
        let target = outDirectory.appendingPathComponent((path as NSString).lastPathComponent + ".thumb.png")
        try png.write(to: target)
        print("\(path)\t\(image.width)x\(image.height)\t\(target.path)")
    } catch {
        print("\(path)\terror\t\(error)")
    }
}
