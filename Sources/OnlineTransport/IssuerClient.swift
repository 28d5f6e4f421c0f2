import FoundationEssentials
import JOSE
import MdocCrypto
import OAuthWeb
import OpenID4VCI

/// The credential issuer and its authorization server as typed async calls (OpenID4VCI 1.0,
/// RFC 6749, RFC 8414, RFC 9449): offer, metadata, token, pushed authorization, nonce,
/// credential, deferred credential, notification.
///
/// It owns what every exchange with the issuer shares: the HTTPS client, where the endpoints
/// the metadata names may lead (``remote``), the DPoP key and the last `DPoP-Nonce` of each
/// host (a `use_dpop_nonce` challenge is answered once), the `c_nonce` retry, encrypted
/// requests and answers, and the mapping of a non-2xx answer to the issuer's OAuth error.
/// Every call throws ``CredentialIssuanceError``; the flow only sequences them.
public struct IssuerClient: Sendable {
    public let fetcher: HTTPFetcher
    /// The clock of DPoP proofs.
    public let now: @Sendable () -> Date

    /// The DPoP key, once the authorization server supports DPoP (or a pending issuance kept one).
    public var dpop: DPoPKey?
    /// Encrypted requests and responses, when the issuer offers them.
    public var encryption: MessageEncryption?
    /// The last DPoP nonce each host sent.
    public var dpopNonces: [String: String] = [:]
    /// Where endpoints the issuer's metadata (and its authorization server's) names may lead:
    /// public addresses, and the class of the credential issuer's own address once its
    /// metadata came from there.
    public var remote = EndpointPolicy(namedBy: "the issuer", partyAddress: nil)

    public init(fetcher: HTTPFetcher, now: @escaping @Sendable () -> Date) {
        self.fetcher = fetcher
        self.now = now
    }

    /// A client with its own HTTPS client (`tlsCAs` beside the system trust store).
    public init(tlsCAs: [Certificate], limits: HTTPFetcher.Limits, now: @escaping @Sendable () -> Date)
        throws(CredentialIssuanceError)
    {
        do {
            self.init(fetcher: try HTTPFetcher(additionalTrustRoots: tlsCAs, limits: limits), now: now)
        } catch {
            throw .setup(error)
        }
    }

    // MARK: - What the user chose

    /// The offer a `credential_offer_uri` refers to.
    public func offer(at uri: String) async throws(CredentialIssuanceError) -> CredentialOffer {
        let response = try await get(uri, what: "fetching the credential offer")
        guard let json = try? JSONValue(parsing: response.body) else {
            throw .protocolError(.invalidOffer("credential_offer_uri did not answer with JSON"))
        }
        return try Self.mapped { () throws(IssuanceError) in try CredentialOffer(json: json) }
    }

    /// The credential issuer's metadata (signed metadata checked against `trustAnchors`); its
    /// address decides which addresses the endpoints it names may have
    /// (``useEncryption(of:)`` then takes its encryption parameters).
    public mutating func metadata(of issuer: String, trustAnchors: [Certificate]) async throws(CredentialIssuanceError)
        -> CredentialIssuerMetadata
    {
        guard let response = try await fetchMetadata(of: issuer) else {
            throw .protocolError(.invalidOffer("credential_issuer is not a valid URL"))
        }
        return try Self.mapped { () throws(IssuanceError) in
            try Self.parseMetadata(response, issuer: issuer, trustAnchors: trustAnchors, at: now())
        }
    }

    /// GETs the issuer's metadata (nil when `issuer` is no URL); where it answers from decides
    /// the addresses of the endpoints it names.
    public mutating func fetchMetadata(of issuer: String) async throws(CredentialIssuanceError) -> HTTPResponse? {
        guard let url = IssuerIdentifier.wellKnown(issuer, suffix: CredentialIssuerMetadata.wellKnownSuffix) else {
            return nil
        }
        let response = try await get(url, what: "fetching the issuer's metadata", accept: SignedIssuerMetadata.accept)
        remote = EndpointPolicy(namedBy: "the issuer", partyAddress: response.remoteAddress)
        return response
    }

    public static func parseMetadata(
        _ response: HTTPResponse, issuer: String, trustAnchors: [Certificate], at time: Date
    )
        throws(IssuanceError) -> CredentialIssuerMetadata
    {
        try SignedIssuerMetadata.metadata(
            body: response.body, contentType: response.contentType, issuer: issuer, trustAnchors: trustAnchors,
            at: time)
    }

    /// Encrypts requests and answers as `metadata` offers (or not at all).
    public mutating func useEncryption(of metadata: CredentialIssuerMetadata?) throws(CredentialIssuanceError) {
        guard let metadata else {
            encryption = nil
            return
        }
        encryption = try Self.mapped { () throws(IssuanceError) in try MessageEncryption(metadata: metadata) }
    }

    /// The authorization server's metadata (RFC 8414; the OpenID configuration when that is
    /// not found).
    public func authorizationServer(_ identifier: String) async throws(CredentialIssuanceError)
        -> AuthorizationServerMetadata
    {
        guard let oauthURL = IssuerIdentifier.wellKnown(identifier, suffix: AuthorizationServerMetadata.wellKnownSuffix)
        else { throw .protocolError(.invalidMetadata("the authorization server is not a valid URL")) }
        var response = try await exchange(what: "fetching the authorization server metadata") {
            () async throws(HTTPFetchError) in
            try await fetcher.get(oauthURL, accept: "application/json", policy: remote)
        }
        if response.status == 404 {
            let fallback = IssuerIdentifier.openIDConfiguration(identifier)
            response = try await exchange(what: "fetching the OpenID configuration") {
                () async throws(HTTPFetchError) in
                try await fetcher.get(fallback, accept: "application/json", policy: remote)
            }
        }
        guard response.status == 200 else {
            throw .unexpectedStatus(
                what: "the authorization server metadata", host: response.host, status: response.status)
        }
        return try Self.mapped { () throws(IssuanceError) in
            try AuthorizationServerMetadata(body: response.body, issuer: identifier)
        }
    }

    /// GETs what the user chose (an offer, the credential issuer's metadata): any address.
    public func get(_ url: String, what: String, accept: String = "application/json")
        async throws(CredentialIssuanceError)
        -> HTTPResponse
    {
        let response = try await exchange(what: what) { () async throws(HTTPFetchError) in
            try await fetcher.get(url, accept: accept, policy: .unrestricted)
        }
        guard response.status == 200 else {
            throw .unexpectedStatus(what: what, host: response.host, status: response.status)
        }
        return response
    }

    // MARK: - Error mapping

    public func exchange(what: String, _ body: () async throws(HTTPFetchError) -> HTTPResponse)
        async throws(CredentialIssuanceError) -> HTTPResponse
    {
        do {
            return try await body()
        } catch {
            throw .exchange(what: what, error)
        }
    }

    /// The protocol layer's error as the flow's: the one place it is wrapped.
    public static func mapped<T>(_ body: () throws(IssuanceError) -> T) throws(CredentialIssuanceError) -> T {
        do {
            return try body()
        } catch {
            throw .protocolError(error)
        }
    }
}
