import FoundationEssentials

/// The parts of an absolute URL the protocol looks at (scheme lowercased, host, port, path,
/// query, fragment), read with Foundation's RFC 3986 parser.
public struct ParsedURL: Sendable, Equatable {
    public var scheme: String
    public var host: String
    public var port: Int?
    public var path: String
    public var query: String?
    public var fragment: String?

    public init?(_ text: String) {
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
    public var authority: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(h):\($0)" } ?? h
    }

    /// scheme://authority/path, without query and fragment (DPoP `htu`, RFC 9449 section 4.2).
    public var withoutQueryAndFragment: String {
        "\(scheme)://\(authority)\(path)"
    }
}
