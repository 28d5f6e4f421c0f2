import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP proxy HTTPS exchanges go through: an HTTP CONNECT tunnel to the endpoint (TLS
/// stays end to end, verified with the endpoint's certificate), set by `https_proxy` and
/// bypassed for the hosts `no_proxy` names, as curl and apt read them.
///
/// Through a proxy the holder still resolves the endpoint's name itself, checks every address
/// with the request's ``CurlRequest/connectFilter``, and asks the proxy for a tunnel to the
/// checked address (`CONNECT 198.51.100.10:443`, never to the name): the proxy cannot be made
/// to resolve the name to another address. The proxy's own address is the operator's choice
/// and is not checked.
public struct CurlProxy: Sendable, Equatable {
    /// The proxy as configured: `http://[user:password@]host[:port]` or `host[:port]`
    /// (http; curl's default port 1080). Never put in a message (it may carry a password).
    public let url: String
    /// The hosts that bypass the proxy, in `no_proxy`'s syntax; nil or empty: none.
    public let noProxy: String?

    public init(url: String, noProxy: String? = nil) {
        self.url = url
        self.noProxy = noProxy
    }

    /// The proxy of the environment, read as curl reads it for https URLs: `https_proxy`, or
    /// `HTTPS_PROXY` when the lowercase one is not set; set but empty: no proxy. The bypass
    /// list: `no_proxy`, else `NO_PROXY`. `http_proxy` and `all_proxy` are not read.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> CurlProxy?
    {
        guard let url = environment["https_proxy"] ?? environment["HTTPS_PROXY"],
            !url.trimmingSpacesAndTabs().isEmpty
        else { return nil }
        return CurlProxy(
            url: url.trimmingSpacesAndTabs(), noProxy: environment["no_proxy"] ?? environment["NO_PROXY"])
    }

    /// The proxy's scheme, host and port; nil when `url` is not an http proxy URL (another
    /// scheme, such as `socks5://` or `https://`, or no host).
    public var authority: (host: String, port: Int)? {
        var text = url
        if let range = text.firstRange(of: "://") {
            guard text[..<range.lowerBound].lowercased() == "http" else { return nil }
            text = String(text[range.upperBound...])
        }
        guard let components = URLComponents(string: "http://" + text), var host = components.host, !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, components.port ?? 1080)
    }

    /// `host:port` of the proxy for messages, without credentials.
    public var displayName: String {
        guard let authority else { return "(not an http:// proxy)" }
        let host = authority.host.contains(":") ? "[\(authority.host)]" : authority.host
        return "\(host):\(authority.port)"
    }

    /// Whether `no_proxy` exempts `host` (as a URL carries it; an IPv6 literal in brackets),
    /// by curl's rules: `*` alone exempts every host; entries are separated by commas or
    /// blanks; a name matches itself and its subdomains (`example.com` and `.example.com`
    /// both match `www.example.com`, not `nonexample.com`), case-insensitively, trailing dots
    /// ignored; an IP address in the URL matches an entry that is the same address or a CIDR
    /// range holding it (`10.0.0.0/8`, `fd00::/8`). Names are compared as written: a name is
    /// never resolved to be compared with an address entry.
    public func bypasses(host: String) -> Bool {
        guard let noProxy, !noProxy.isEmpty, !host.isEmpty else { return false }
        if noProxy == "*" { return true }
        var name = host
        var address: IPAddress?
        if name.hasPrefix("[") {
            guard name.hasSuffix("]"), let v6 = IPAddress(name), !v6.isIPv4 else { return false }
            address = v6
        } else if let v4 = IPAddress(name), v4.isIPv4, !name.contains(":") {
            address = v4
        } else if name.hasSuffix(".") {
            name.removeLast()
        }
        let tokens = noProxy.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
        for token in tokens {
            if let address {
                if Self.matches(address, cidr: String(token)) { return true }
                continue
            }
            var pattern = Substring(token)
            if pattern.hasSuffix(".") { pattern = pattern.dropLast() }
            if pattern.hasPrefix(".") { pattern = pattern.dropFirst() }
            guard !pattern.isEmpty else { continue }
            let candidate = name.lowercased()
            let wanted = pattern.lowercased()
            if candidate == wanted || candidate.hasSuffix("." + wanted) { return true }
        }
        return false
    }

    /// Whether `address` is in `cidr` (`a.b.c.d`, `a.b.c.d/n`, `x::y`, `x::y/n`; no length:
    /// the address itself). Only addresses of the same family match.
    static func matches(_ address: IPAddress, cidr: String) -> Bool {
        var text = cidr
        var bits = address.bytes.count * 8
        if let slash = text.firstIndex(of: "/") {
            guard let length = Int(text[text.index(after: slash)...]), length >= 0, length <= bits else { return false }
            // curl takes /0 as no length (the whole address).
            if length > 0 { bits = length }
            text = String(text[..<slash])
        }
        guard let network = IPAddress(text), network.bytes.count == address.bytes.count else { return false }
        var remaining = bits
        for (a, b) in zip(address.bytes, network.bytes) {
            guard remaining > 0 else { break }
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a & mask != b & mask { return false }
            remaining -= 8
        }
        return true
    }
}
