import Foundation
import ImageKernel

extension RedisCache {
    /// Where the server is and how to log in: `redis://[[user]:password@]host[:port][/db]`.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// Host name or address (default `127.0.0.1`).
        public var host: String
        /// TCP port (default 6379).
        public var port: Int
        /// ACL user name for `AUTH user password` (Redis 6+); nil sends `AUTH password`.
        public var username: String?
        /// Password for `AUTH`; nil sends no `AUTH`.
        public var password: String?
        /// Database number for `SELECT` (default 0).
        public var database: Int

        public init(host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: String? = nil, database: Int = 0) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
        }

        /// Parses `redis://[[user]:password@]host[:port][/db]`; user and password may be percent-encoded.
        /// - Throws: ``ImageKernelError`` with code `invalidArgument` for another scheme, a missing
        ///   host, a port outside 1...65535 or a database that is not a non-negative number.
        public init(url text: String) throws(ImageKernelError) {
            func invalid(_ why: String) -> ImageKernelError {
                ImageKernelError(stage: .cache, plugin: RedisCache.pluginName, code: .invalidArgument, message: "bad Redis URL \(text.debugDescription): \(why)")
            }
            guard let components = URLComponents(string: text), components.scheme?.lowercased() == "redis" else {
                throw invalid("expected redis://[:password@]host[:port][/db] (or redis+cluster://host:port,host:port for a cluster)")
            }
            guard var host = components.host, !host.isEmpty else { throw invalid("no host") }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }  // an IPv6 literal
            let port = components.port ?? 6379
            guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
            let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            guard path.isEmpty || Int(path).map({ $0 >= 0 }) == true else { throw invalid("database \(path.debugDescription) is not a number") }
            let user = components.percentEncodedUser?.removingPercentEncoding
            self.init(
                host: host, port: port, username: user?.isEmpty == false ? user : nil,
                password: components.percentEncodedPassword?.removingPercentEncoding, database: Int(path) ?? 0)
        }

        /// The seed nodes of `redis+cluster://[[user]:password@]host:port[,host:port…][/0]`; nil for
        /// another scheme.
        /// - Throws: ``ImageKernelError`` with code `invalidArgument` for no seed, a seed that does
        ///   not parse, or a database other than 0.
        public static func clusterSeeds(url text: String) throws(ImageKernelError) -> [Endpoint]? {
            let scheme = "redis+cluster://"
            guard text.lowercased().hasPrefix(scheme) else { return nil }
            func invalid(_ why: String) -> ImageKernelError {
                ImageKernelError(stage: .cache, plugin: RedisCache.pluginName, code: .invalidArgument, message: "bad Redis Cluster URL \(text.debugDescription): \(why)")
            }
            var rest = text.dropFirst(scheme.count)
            var userInfo = ""
            if let at = rest.lastIndex(of: "@") {
                userInfo = String(rest[...at])
                rest = rest[rest.index(after: at)...]
            }
            var path = ""
            if let slash = rest.firstIndex(of: "/") {
                path = String(rest[slash...])
                rest = rest[..<slash]
            }
            guard path.isEmpty || path == "/" || path == "/0" else { throw invalid("a cluster has only database 0") }
            let hosts = rest.split(separator: ",", omittingEmptySubsequences: false)
            guard !rest.isEmpty, !hosts.contains(where: \.isEmpty) else { throw invalid("expected redis+cluster://host:port[,host:port…]") }
            var seeds: [Endpoint] = []
            for host in hosts {
                do {
                    seeds.append(try Endpoint(url: "redis://\(userInfo)\(host)"))
                } catch {
                    throw invalid("seed \(String(host).debugDescription): \(error.message)")
                }
            }
            return seeds
        }

        /// `host:port/db`, never the password.
        public var description: String { "\(host):\(port)/\(database)" }
    }
}
