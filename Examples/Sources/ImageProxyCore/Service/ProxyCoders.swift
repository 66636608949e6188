import CoderBMP
import CoderGIF
import CoderHEIF
import CoderJPEG
import CoderPNG
import CoderTIFF
import CoderWebP
import ImageKernel

extension ImageProxyService {
    /// The coders the service decodes sources with and encodes results with: every format the
    /// package has a plugin for. TIFF reads its first page, ICO the entry that best fits the
    /// requested box (the largest when no box is asked).
    static func coders() -> [any ImageCoder] {
        [JPEGCoder(), PNGCoder(), WebPCoder(), HEIFCoder(), GIFCoder(), TIFFCoder(), BMPCoder(pngCoder: PNGCoder())]
    }
}
