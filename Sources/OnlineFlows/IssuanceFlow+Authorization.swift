import Consent
import FoundationEssentials
import ISO18013
import JOSE
import MdocCrypto
import OAuthWeb
import OnlineTransport
import OpenID4VCI
import SecureArea
import Wallet

extension IssuanceFlow {
    // MARK: - Step 4: the access token

    /// The access token: with the pre-authorized code, or through the authorization code
    /// flow; DPoP-bound when the server supports DPoP.
    mutating func accessToken(_ issuer: OfferedIssuer, accepted: [CredentialConfiguration])
        async throws(CredentialIssuanceError) -> TokenResponse
    {
        if issuer.server.usesDPoP {
            client.dpop = try IssuerClient.mapped { () throws(IssuanceError) in try DPoPKey() }
        }
        guard let grant = issuer.offer.preAuthorizedCode else {
            return try await authorizationCodeToken(
                server: issuer.server, issuerState: issuer.offer.authorizationCode?.issuerState,
                configurations: accepted, credentialIssuer: issuer.metadata.credentialIssuer)
        }
        var code: String?
        if let description = grant.transactionCode {
            let codeRequest = TransactionCodeRequest(
                issuerName: issuer.name, issuer: issuer.metadata.credentialIssuer, tlsHost: issuer.host,
                code: description)
            let given = try await transactionCode(codeRequest)
            try IssuerClient.mapped { () throws(IssuanceError) in try description.check(given) }
            code = given
        }
        return try await requestToken(
            TokenRequest.preAuthorizedCode(grant.preAuthorizedCode, transactionCode: code), server: issuer.server)
    }

    mutating func requestToken(_ request: TokenRequest, server: AuthorizationServerMetadata)
        async throws(CredentialIssuanceError) -> TokenResponse
    {
        events(.requestingToken(host: IssuerIdentifier.host(server.tokenEndpoint) ?? "-", dpop: client.dpop != nil))
        return try await client.token(request, server: server)
    }

    /// The authorization code flow: a loopback listener for the redirect, PKCE, a pushed
    /// authorization request (by `authorization_details` or by `scope`, as the server takes them)
    /// when the server has an endpoint for it, the URL for the user, the redirect (state and iss
    /// checked), the code exchanged for a token.
    mutating func authorizationCodeToken(
        server: AuthorizationServerMetadata, issuerState: String?, configurations: [CredentialConfiguration],
        credentialIssuer: String
    ) async throws(CredentialIssuanceError) -> TokenResponse {
        guard let authorizationEndpoint = server.authorizationEndpoint else {
            throw .protocolError(
                .unsupported(
                    "the offer has no pre-authorized code and the authorization server no authorization_endpoint"))
        }
        if !server.codeChallengeMethods.isEmpty, !server.codeChallengeMethods.contains(PKCE.method) {
            throw .protocolError(.unsupported("the authorization server does not take PKCE S256"))
        }
        let (port, path) = try Self.listenerAddress(issuance.redirectURI)
        let listener: LoopbackRedirectListener
        do {
            listener = try await LoopbackRedirectListener.start(port: port, path: path)
        } catch {
            throw .exchange(what: "listening for the authorization redirect", error)
        }
        let authorization = CodeAuthorization(
            clientID: issuance.clientID, redirectURI: issuance.redirectURI ?? listener.redirectURI,
            issuerState: issuerState, configurationIDs: configurations.map(\.id),
            scopes: CodeAuthorization.scopes(for: configurations, server: server),
            credentialIssuer: IssuerIdentifier.same(server.issuer, credentialIssuer)
                ? nil : credentialIssuer)
        let url: String
        do {
            url = try await authorizationURL(authorization, server: server, endpoint: authorizationEndpoint)
        } catch {
            await listener.close()
            throw error
        }
        events(.openAuthorization(url: url))
        // A cancelled session (the service's Cancel, an agent that did not open the URL) stops
        // waiting at once.
        let timeout = issuance.authorizationTimeout
        let waited = await withTaskCancellationHandler { () async -> Result<String, HTTPFetchError> in
            do throws(HTTPFetchError) {
                return .success(try await listener.waitForRedirect(timeout: timeout))
            } catch {
                return .failure(error)
            }
        } onCancel: {
            Task { await listener.close() }
        }
        let query: String
        switch waited {
        case .success(let value): query = value
        case .failure(let error): throw .exchange(what: "waiting for the authorization redirect", error)
        }
        let code = try IssuerClient.mapped { () throws(IssuanceError) in
            try authorization.code(fromRedirectQuery: query, authorizationServer: server.issuer)
        }
        proofIssuer = issuance.clientID
        return try await requestToken(
            TokenRequest.authorizationCode(
                code, codeVerifier: authorization.pkce.verifier, redirectURI: authorization.redirectURI,
                clientID: issuance.clientID), server: server)
    }

    /// The URL the user opens; with a pushed authorization request first when the server has
    /// an endpoint for it.
    mutating func authorizationURL(
        _ authorization: CodeAuthorization, server: AuthorizationServerMetadata, endpoint: String
    ) async throws(CredentialIssuanceError) -> String {
        var requestURI: String?
        if let par = server.pushedAuthorizationRequestEndpoint {
            requestURI = try await client.pushAuthorization(authorization, endpoint: par)
        } else if server.requirePushedAuthorizationRequests {
            throw .protocolError(
                .invalidMetadata("pushed authorization requests are required but there is no endpoint for them"))
        }
        return try IssuerClient.mapped { () throws(IssuanceError) in
            try authorization.authorizationURL(endpoint: endpoint, requestURI: requestURI)
        }
    }

    /// Where the listener listens: a random port at `/callback`, or the loopback address of
    /// `--redirect-uri`.
    static func listenerAddress(_ redirectURI: String?) throws(CredentialIssuanceError) -> (Int, String) {
        guard let redirectURI else { return (0, "/callback") }
        guard let components = URLComponents(string: redirectURI), components.scheme == "http",
            components.host == "127.0.0.1", let port = components.port, port > 0
        else {
            throw .protocolError(
                .unsupported(
                    "--redirect-uri must be a loopback http://127.0.0.1:PORT/PATH that the redirect reaches (a relay forwards it there)"
                ))
        }
        return (port, components.path.isEmpty ? "/" : components.path)
    }
}
