import Consent
import Foundation
import ISO18013
import JOSE
import MdocCrypto
import OpenID4VCI
import SecureArea
import Wallet

extension IssuanceFlow {
    // MARK: - Step 4: the access token

    /// The token for a pre-authorized code; `codeRequest` (the offer asks for a transaction
    /// code) goes to the transaction code source first.
    mutating func preAuthorizedToken(
        _ grant: PreAuthorizedCodeGrant, codeRequest: TransactionCodeRequest?, server: AuthorizationServerMetadata
    ) async throws(CredentialIssuanceError) -> TokenResponse {
        var code: String?
        if let codeRequest {
            let given = try await transactionCode(codeRequest)
            do {
                try codeRequest.code.check(given)
            } catch {
                throw .protocolError(error)
            }
            code = given
        }
        return try await requestToken(
            TokenRequest.preAuthorizedCode(grant.preAuthorizedCode, transactionCode: code), server: server)
    }

    mutating func requestToken(_ request: TokenRequest, server: AuthorizationServerMetadata)
        async throws(CredentialIssuanceError) -> TokenResponse
    {
        events(.requestingToken(host: IssuerIdentifier.host(server.tokenEndpoint) ?? "-", dpop: dpop != nil))
        let answer = try await send(
            server.tokenEndpoint, what: "the token request", endpoint: "token endpoint",
            contentType: "application/x-www-form-urlencoded", body: Array(request.body.utf8), token: nil)
        do {
            return try TokenResponse(body: answer.body)
        } catch {
            throw .protocolError(error)
        }
    }

    /// The authorization code flow: a loopback listener for the redirect, PKCE, a pushed
    /// authorization request when the server has an endpoint for it, the URL for the user, the
    /// redirect (state and iss checked), the code exchanged for a token.
    mutating func authorizationCodeToken(
        server: AuthorizationServerMetadata, issuerState: String?, configurationIDs: [String], credentialIssuer: String
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
            issuerState: issuerState, configurationIDs: configurationIDs,
            credentialIssuer: CredentialIssuerMetadata.sameIdentifier(server.issuer, credentialIssuer)
                ? nil : credentialIssuer)
        let url: String
        do {
            url = try await authorizationURL(authorization, server: server, endpoint: authorizationEndpoint)
        } catch {
            await listener.close()
            throw error
        }
        events(.openAuthorization(url: url))
        let query: String
        do {
            query = try await listener.waitForRedirect(timeout: issuance.authorizationTimeout)
        } catch {
            throw .exchange(what: "waiting for the authorization redirect", error)
        }
        let code: String
        do {
            code = try authorization.code(fromRedirectQuery: query, authorizationServer: server.issuer)
        } catch {
            throw .protocolError(error)
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
            let answer = try await send(
                par, what: "the pushed authorization request", endpoint: "pushed authorization request endpoint",
                contentType: "application/x-www-form-urlencoded", body: Array(authorization.pushedRequestBody.utf8),
                token: nil)
            do {
                requestURI = try CodeAuthorization.pushedRequestURI(body: answer.body)
            } catch {
                throw .protocolError(error)
            }
        } else if server.requirePushedAuthorizationRequests {
            throw .protocolError(
                .invalidMetadata("pushed authorization requests are required but there is no endpoint for them"))
        }
        do {
            return try authorization.authorizationURL(endpoint: endpoint, requestURI: requestURI)
        } catch {
            throw .protocolError(error)
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

    // MARK: - Step 1: the offer

    func obtainOffer(_ text: String) async throws(CredentialIssuanceError) -> CredentialOffer {
        let url: CredentialOfferURL
        do {
            url = try CredentialOfferURL(text)
        } catch {
            throw .protocolError(error)
        }
        switch url {
        case .byValue(let offer):
            return offer
        case .byReference(let uri):
            events(.fetchingOffer(host: IssuerIdentifier.host(uri) ?? "-"))
            let response = try await get(uri, what: "fetching the credential offer")
            guard let json = try? JSONValue(parsing: response.body) else {
                throw .protocolError(.invalidOffer("credential_offer_uri did not answer with JSON"))
            }
            do {
                return try CredentialOffer(json: json)
            } catch {
                throw .protocolError(error)
            }
        }
    }

    // MARK: - Step 2: the authorization server

    func authorizationServer(_ identifier: String) async throws(CredentialIssuanceError)
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
        do {
            return try AuthorizationServerMetadata(body: response.body, issuer: identifier)
        } catch {
            throw .protocolError(error)
        }
    }

}
