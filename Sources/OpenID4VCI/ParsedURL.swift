import Foundation

/// The parts of an absolute URL the protocol looks at (scheme lowercased, host, port, path,
/// query, fragment), read with Foundation's RFC 3986 parser.
struct ParsedURL {
    var scheme: String
    var host: String
    var port: Int?
    var path: String
    var query: String?
    var fragment: String?

    init?(_ text: String) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            return nil
        }
        self.scheme = scheme
        host = components.host ?? ""
        port = components.port
        path = components.percentEncodedPath
        query = components.percentEncodedQuery
        fragment = components.percentEncodedFragment
    }

    /// host[:port], IPv6 literals bracketed.
    var authority: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(h):\($0)" } ?? h
    }

    /// scheme://authority/path, without query and fragment (DPoP `htu`, RFC 9449 section 4.2).
    var withoutQueryAndFragment: String {
        "\(scheme)://\(authority)\(path)"
    }
}
