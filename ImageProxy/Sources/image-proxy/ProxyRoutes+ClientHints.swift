import HTTPTypes
import ImageProxyCore

extension ProxyRoutes {
    /// A request's client hints when `service` reads them (imgproxy's
    /// `IMGPROXY_ENABLE_CLIENT_HINTS`), else nil without reading a header.
    static func clientHints(_ fields: HTTPFields, readBy service: ImageProxyService) -> ImgproxyClientHints? {
        guard service.readsClientHints else { return nil }
        return ImgproxyClientHints { name in HTTPField.Name(name).flatMap { fields[$0] } }
    }
}
