import CoderBMP
import CoderGIF
import CoderHEIF
import CoderJPEG
import CoderJXL
import CoderPNG
import CoderSVG
import CoderTIFF
import CoderWebP
import ImageKernel

extension ImageProxyService {
    /// The coders the service decodes sources with and encodes results with: every format the
    /// package has a plugin for. TIFF reads its first page, ICO the entry that best fits the
    /// requested box (the largest when no box is asked). An SVG source is rasterised, at the
    /// spec's resize box when it has one (shrink on load draws the document at that size), within
    /// the coder's render budget and without any network or file access; it is never passed
    /// through. JPEG XL decodes on one thread here: the service runs renders side by side already.
    static func coders() -> [any ImageCoder] {
        [JPEGCoder(), PNGCoder(), WebPCoder(), HEIFCoder(), GIFCoder(), TIFFCoder(), BMPCoder(pngCoder: PNGCoder()),
         JXLCoder(threads: 1), SVGCoder()]
    }
}
