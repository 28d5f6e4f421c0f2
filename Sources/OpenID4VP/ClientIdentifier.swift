/// A verifier's `client_id` with its Client Identifier Prefix (OpenID4VP 1.0 section 5.9).
///
/// The prefix is the text before the first `:` when that text is a prefix this wallet
/// recognizes; otherwise the whole value names a pre-registered verifier (section 5.9.2).
/// ``raw`` is what the transcript, the comparison with the Request Object and the history
/// use: always the full value.
public struct ClientIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The Client Identifier Prefixes of OpenID4VP 1.0 section 5.9.3.
    public enum Prefix: String, Sendable, Hashable, CaseIterable {
        /// No prefix: the verifier must be known to the wallet in advance.
        case preRegistered = "pre-registered"
        case redirectURI = "redirect_uri"
        case x509SanDNS = "x509_san_dns"
        case x509Hash = "x509_hash"
        case decentralizedIdentifier = "decentralized_identifier"
        case verifierAttestation = "verifier_attestation"
        case openIDFederation = "openid_federation"
        /// Reserved for the Digital Credentials API; always refused here.
        case origin = "origin"
    }

    /// The full `client_id` as sent.
    public let raw: String
    public let prefix: Prefix
    /// The identifier without its prefix (the whole value for pre-registered verifiers).
    public let value: String

    /// Splits `clientID` into prefix and value.
    public init(_ clientID: String) {
        raw = clientID
        if let colon = clientID.firstIndex(of: ":"),
            let prefix = Prefix(rawValue: String(clientID[..<colon])), prefix != .preRegistered
        {
            self.prefix = prefix
            self.value = String(clientID[clientID.index(after: colon)...])
        } else {
            self.prefix = .preRegistered
            self.value = clientID
        }
    }

    /// A pre-1.0 request (ISO/IEC TS 18013-7): `client_id` without a prefix and the prefix in
    /// a separate `client_id_scheme` parameter. The raw value stays as sent (the 18013-7
    /// handover hashes it so).
    init(legacyClientID clientID: String, scheme: Prefix) {
        raw = clientID
        prefix = scheme
        value = clientID
    }

    public var description: String { raw }
}
