import Consent

/// The consent request of an offer: the issuer (its display name, its identifier and the TLS
/// host that served its metadata) and what it will issue (each credential configuration's
/// display name and doc type or vct, and its claims with their display names), in the shape every
/// consent front-end already shows. Channel ``PresentationChannel/issuance``.
public enum IssuanceConsent {
    /// - Parameters:
    ///   - configurations: the offered configurations the holder can receive, in offer order.
    ///   - tlsHost: the host whose TLS certificate served the issuer's metadata.
    public static func request(
        issuer: CredentialIssuerMetadata, configurations: [CredentialConfiguration], tlsHost: String, copies: Int
    ) -> ConsentRequest {
        let requester = issuerRequester(issuer, tlsHost: tlsHost)
        let documents = configurations.map { configuration in
            DocumentRequest(
                docType: configuration.credentialType, credentialID: configuration.id,
                elements: configuration.claims.map { claim in
                    RequestedElement(
                        elementID(claim.path, sdJWT: configuration.isSDJWT), intentToRetain: false, available: true,
                        required: claim.mandatory,
                        displayName: claim.displayName)
                }, requester: requester, displayName: configuration.displayName)
        }
        let warning = copies > 1 ? "\(copies) copies will be issued, each bound to its own new key" : nil
        return ConsentRequest(channel: .issuance, requester: requester, documents: documents, warning: warning)
    }

    /// The issuer as consent front-ends and the history name it.
    public static func issuerRequester(_ issuer: CredentialIssuerMetadata, tlsHost: String) -> Requester {
        Requester(
            displayName: issuer.displayName ?? tlsHost, identifier: issuer.credentialIssuer,
            authentication: .trusted(anchor: "the TLS certificate of \(tlsHost)"))
    }

    /// An mso_mdoc claim path is [namespace, element]; an SD-JWT VC's claim path is shown as
    /// presentation shows it (no namespace, names joined with "."); other paths are joined
    /// with "/".
    static func elementID(_ path: [String], sdJWT: Bool = false) -> ElementID {
        if sdJWT { return ElementID("", path.joined(separator: ".")) }
        if path.count == 2 { return ElementID(path[0], path[1]) }
        return ElementID("", path.joined(separator: "/"))
    }

    /// Whether the decision accepts the configuration `id`.
    public static func accepts(_ decision: ConsentDecision, configuration: CredentialConfiguration) -> Bool {
        guard case .approve(let approved) = decision else { return false }
        return approved[configuration.credentialType] != nil
    }
}
