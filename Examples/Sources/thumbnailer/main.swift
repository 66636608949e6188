// thumbnailer: decode each image straight to a thumbnail, turn it upright, fill the box with
// rounded corners, and write it as PNG.
// Usage: thumbnailer [--size WxH] [--radius R] [--out DIR] FILE...
import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel
import LoaderFile
import Transformers

var arguments = Array(CommandLine.arguments.dropFirst())
var box = PixelSize(width: 128, height: 128)
var radius = 12
var outDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnails")
while let flag = arguments.first, flag.hasPrefix("--"), arguments.count >= 2 {
    if flag == "--size", let size = PixelSize(parsing: arguments[1]) { box = size }
    if flag == "--radius", let r = Int(arguments[1]), r >= 0 { radius = r }
    if flag == "--out" { outDirectory = URL(fileURLWithPath: arguments[1]) }
    arguments.removeFirst(2)
}
try FileManager.default.createDirectory(at: outDirectory, withIntermediateDirectories: true)

let manager = ImageManager(configuration: .init(
    loaders: LoaderRegistry([FileLoader()]),
    coders: CoderRegistry([PNGCoder(), JPEGCoder()])))
var context = ImageContext()
// Decode at least as large as the box needs to cover it, then let the chain crop and round.
context.thumbnailPixelSize = PixelSize(width: box.width * 2, height: box.height * 2)
context.transformer = try TransformSpec(parsing: "orient/resize:fill:\(box.width):\(box.height)/round:\(radius)")

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
