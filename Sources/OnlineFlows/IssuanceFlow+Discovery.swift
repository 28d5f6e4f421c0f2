import Consent
import FoundationEssentials
import OAuthWeb
import OnlineTransport
import OpenID4VCI
import Wallet

/// The issuer of an offer, as steps 1 and 2 found it: its metadata, the offered
/// configurations (each receivable here), its authorization server.
struct OfferedIssuer {
    var offer: CredentialOffer
    var metadata: CredentialIssuerMetadata
    var configurations: [CredentialConfiguration]
    var server: AuthorizationServerMetadata
    /// The display name of its metadata, or its host.
    var name: String
    /// The host whose TLS certificate served its metadata.
    var host: String

    /// What the store keeps beside what it issues.
    var source: IssuanceSource {
        IssuanceSource(
            issuer: metadata.credentialIssuer, issuerName: name, notificationEndpoint: metadata.notificationEndpoint)
    }
}

extension IssuanceFlow {
    // MARK: - Step 1: the offer

    func obtainOffer(_ text: String) async throws(CredentialIssuanceError) -> CredentialOffer {
        let url = try IssuerClient.mapped { () throws(IssuanceError) in try CredentialOfferURL(text) }
        let offer: CredentialOffer
        switch url {
        case .byValue(let value):
            offer = value
        case .byReference(let uri):
            events(.fetchingOffer(host: IssuerIdentifier.host(uri) ?? "-"))
            offer = try await client.offer(at: uri)
        }
        // Without a pre-authorized code the authorization code flow is used, also when the
        // offer names no grant (OpenID4VCI section 4.1.1).
        if offer.preAuthorizedCode == nil, !issuance.authorizationCodeFlow {
            throw .protocolError(
                .unsupported(
                    "the offer has no pre-authorized code: it needs the authorization code flow (a browser), which is not offered here"
                ))
        }
        return offer
    }

    // MARK: - Step 2: metadata

    /// The credential issuer's metadata (the party the user chose: its own address decides
    /// which addresses the endpoints it names may have), the offered configurations, and the
    /// authorization server's metadata.
    mutating func discover(_ offer: CredentialOffer) async throws(CredentialIssuanceError) -> OfferedIssuer {
        let host = IssuerIdentifier.host(offer.credentialIssuer) ?? "-"
        let metadata = try await client.metadata(of: offer.credentialIssuer, trustAnchors: issuance.trustAnchors)
        let name = metadata.displayName ?? host
        events(.issuer(name: name, host: host))
        try client.useEncryption(of: metadata)
        let configurations = try offer.credentialConfigurationIDs.map { (id) throws(CredentialIssuanceError) in
            try Self.receivable(id, in: metadata)
        }
        guard issuance.batch >= 1 else { throw .protocolError(.unsupported("--batch must be 1 or more")) }
        if issuance.batch > metadata.batchSize {
            throw .protocolError(
                .unsupported(
                    "\(issuance.batch) copies were asked for but the issuer issues at most \(metadata.batchSize) at once (batch_size)"
                ))
        }
        let server = try await client.authorizationServer(try Self.authorizationServer(of: offer, metadata: metadata))
        return OfferedIssuer(
            offer: offer, metadata: metadata, configurations: configurations, server: server, name: name, host: host)
    }

    /// The offered configuration `id`, when the metadata has it and it can be received here.
    static func receivable(_ id: String, in metadata: CredentialIssuerMetadata) throws(CredentialIssuanceError)
        -> CredentialConfiguration
    {
        guard let configuration = metadata.configurations[id] else {
            throw .protocolError(.invalidOffer("the offered configuration \(id) is not in the issuer's metadata"))
        }
        guard configuration.isReceivable else {
            throw .protocolError(
                .unsupported(
                    "configuration \(id) has format \(configuration.format): only mso_mdoc configurations with a doctype and dc+sd-jwt ones with a vct are received"
                ))
        }
        if let algorithms = configuration.jwtProofAlgorithms, !algorithms.contains("ES256") {
            throw .protocolError(.unsupported("configuration \(id) takes no ES256 jwt proof"))
        }
        if configuration.requiresKeyAttestation {
            throw .protocolError(.unsupported(IssuanceKeys.noKeyAttestation(configuration: id)))
        }
        return configuration
    }

    /// The authorization server the offer's grant names (one of the issuer's), else the
    /// issuer's first, else the issuer itself.
    static func authorizationServer(of offer: CredentialOffer, metadata: CredentialIssuerMetadata)
        throws(CredentialIssuanceError) -> String
    {
        let named = offer.preAuthorizedCode?.authorizationServer ?? offer.authorizationCode?.authorizationServer
        if let named, !metadata.authorizationServers.isEmpty,
            !metadata.authorizationServers.contains(where: { IssuerIdentifier.same($0, named) })
        {
            throw .protocolError(.invalidOffer("authorization_server is not one of the issuer's authorization_servers"))
        }
        return named ?? metadata.authorizationServers.first ?? offer.credentialIssuer
    }

    // MARK: - Step 3: consent

    /// The configurations the user (or the policy) accepts; none asks for nothing.
    func ask(_ issuer: OfferedIssuer) async -> [CredentialConfiguration] {
        let request = IssuanceConsent.request(
            issuer: issuer.metadata, configurations: issuer.configurations, tlsHost: issuer.host,
            copies: issuance.batch)
        let decision = await consent.decide(request)
        return issuer.configurations.filter { IssuanceConsent.accepts(decision, configuration: $0) }
    }
}
