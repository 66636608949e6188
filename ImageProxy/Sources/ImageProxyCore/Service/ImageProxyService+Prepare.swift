import Foundation
import ImageKernel
import LoaderFile
import Transformers

extension ImageProxyService {
    /// What runs once before the service answers: loads and decodes the watermark
    /// (``ProxyConfiguration/watermark``: a file path, or an http(s) URL loaded through the
    /// service's own origin policy, redirects and limits), then parses every preset's steps, so a
    /// bad preset fails the start and not its first request.
    /// - Throws: ``ProxyError`` 500 `invalid_configuration` naming what failed.
    public func prepare() async throws(ProxyError) {
        if let location = configuration.watermark {
            let data: Data
            do throws(ProxyError) {
                data = try await watermarkBytes(location)
            } catch {
                throw ProxyError(status: 500, code: "invalid_configuration", message: "--watermark \(location): \(error.message)")
            }
            do throws(ImageKernelError) {
                let decoded = try manager.coders.decode(data, options: DecodeOptions(pixelLimit: configuration.maxSourcePixels, firstFrameOnly: true))
                let upright = try OrientTransformer().transform(decoded)
                watermark.withLock { $0 = (ColorPolicy.apply(upright, limits: configuration), Digest.base64URL(of: [data])) }
            } catch {
                throw ProxyError(status: 500, code: "invalid_configuration", message: "--watermark \(location): \(error.message)")
            }
        }
        for (name, segments) in configuration.presets.expanded.sorted(by: { $0.key < $1.key }) {
            var output = ProxyRequest.Output()
            var steps: [String] = []
            do throws(ProxyError) {
                for segment in segments where !(segment.hasPrefix("f:") || segment.hasPrefix("format:")) {
                    if try !output.read(Substring(segment)) { steps.append(segment) }
                }
                if !steps.isEmpty { _ = try parsedSpec(steps.joined(separator: "/")) }
            } catch {
                throw ProxyError(status: 500, code: "invalid_configuration", message: "the preset \(name): \(error.message)")
            }
        }
    }

    private func watermarkBytes(_ location: String) async throws(ProxyError) -> Data {
        if let url = URL(string: location), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            try policy.check(url)
            return try await loadSource(url).data
        }
        do throws(ImageKernelError) {
            return try await fileLoader.load(ImageRequest(url: URL(fileURLWithPath: location)), options: [], context: ImageContext(), progress: { _ in }).data
        } catch {
            throw ProxyError(error)
        }
    }
}
