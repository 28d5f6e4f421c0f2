/// Credential Issuer Identifiers and authorization server issuers: https URLs with a host and
/// no query or fragment (OpenID4VCI section 12.2.1, RFC 8414 section 2).
public enum IssuerIdentifier {
    /// Identifiers compare as strings, a trailing slash aside.
    public static func same(_ a: String, _ b: String) -> Bool {
        func trimmed(_ s: String) -> Substring {
            var t = Substring(s)
            while t.hasSuffix("/") { t.removeLast() }
            return t
        }
        return trimmed(a) == trimmed(b)
    }

    public static func isValid(_ text: String) -> Bool {
        guard let url = ParsedURL(text), url.scheme == "https", !url.host.isEmpty else { return false }
        return url.query == nil && url.fragment == nil
    }

    /// The host (with port when not 443), for what the user sees.
    public static func host(_ text: String) -> String? {
        guard let url = ParsedURL(text), !url.host.isEmpty else { return nil }
        return url.port.map { "\(url.host):\($0)" } ?? url.host
    }

    /// The well-known URL for `suffix` (`openid-credential-issuer`, `oauth-authorization-server`):
    /// `/.well-known/SUFFIX` inserted between the host and the path (RFC 8615, RFC 8414 section
    /// 3.1, OpenID4VCI 1.0 section 12.2.2), the path's trailing slash removed.
    public static func wellKnown(_ identifier: String, suffix: String) -> String? {
        guard let url = ParsedURL(identifier) else { return nil }
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        return "\(url.scheme)://\(url.authority)/.well-known/\(suffix)\(path)"
    }

    /// The OpenID Connect Discovery URL (`/.well-known/openid-configuration` appended to the
    /// issuer), the fallback for authorization server metadata.
    public static func openIDConfiguration(_ identifier: String) -> String {
        var base = identifier
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/.well-known/openid-configuration"
    }
}
