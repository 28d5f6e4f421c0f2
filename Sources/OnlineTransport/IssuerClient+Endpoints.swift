import FoundationEssentials
import OAuthWeb
import OpenID4VCI

extension IssuerClient {
    // MARK: - The authorization server

    /// The token endpoint's answer to `request`.
    public mutating func token(_ request: TokenRequest, server: AuthorizationServerMetadata)
        async throws(CredentialIssuanceError) -> TokenResponse
    {
        let answer: HTTPResponse
        do {
            answer = try await send(
                server.tokenEndpoint, what: "the token request", endpoint: "token endpoint",
                contentType: FormEncoding.contentType, body: Array(request.body.utf8), token: nil)
        } catch .protocolError(.issuer(let endpoint, var error)) where request.carriesTransactionCode {
            // Issuers do not agree on the code for a wrong tx_code (invalid_grant,
            // invalid_tx_code, invalid_request): any refusal may be one.
            error.afterTransactionCode = true
            throw .protocolError(.issuer(endpoint: endpoint, error))
        }
        let token = try Self.mapped { () throws(IssuanceError) in try TokenResponse(body: answer.body) }
        if dpop != nil, !token.isDPoP {
            throw .protocolError(
                .invalidResponse(endpoint: "token endpoint", "the token is not DPoP-bound although DPoP was used"))
        }
        return token
    }

    /// The `request_uri` of a pushed authorization request (RFC 9126).
    public mutating func pushAuthorization(_ authorization: CodeAuthorization, endpoint: String)
        async throws(CredentialIssuanceError) -> String
    {
        let answer = try await send(
            endpoint, what: "the pushed authorization request", endpoint: "pushed authorization request endpoint",
            contentType: FormEncoding.contentType, body: Array(authorization.pushedRequestBody.utf8), token: nil)
        return try Self.mapped { () throws(IssuanceError) in try CodeAuthorization.pushedRequestURI(body: answer.body) }
    }

    // MARK: - The credential issuer

    /// A fresh `c_nonce` from the nonce endpoint (nil when the issuer has none).
    public mutating func nonce(_ metadata: CredentialIssuerMetadata) async throws(CredentialIssuanceError) -> String? {
        guard let endpoint = metadata.nonceEndpoint else { return nil }
        let response = try await exchange(what: "getting a nonce") { () async throws(HTTPFetchError) in
            try await fetcher.send(
                endpoint, method: "POST", headers: [("Accept", "application/json")], body: nil, policy: remote)
        }
        noteDPoPNonce(response)
        guard response.status == 200 else {
            throw .unexpectedStatus(what: "the nonce endpoint", host: response.host, status: response.status)
        }
        return try Self.mapped { () throws(IssuanceError) in try NonceResponse(body: response.body).cNonce }
    }

    /// The credential endpoint's answer for `target`, with the key proofs `proofs` makes for a
    /// fresh `c_nonce`; asked once more with a new nonce when the issuer says `invalid_nonce`
    /// (it went stale between the nonce and the credential request).
    public mutating func credential(
        _ target: CredentialRequest.Target, metadata: CredentialIssuerMetadata, token: TokenResponse,
        proofs: (String?) throws(CredentialIssuanceError) -> [String]
    ) async throws(CredentialIssuanceError) -> CredentialResponse {
        var attempt = 0
        while true {
            let request = CredentialRequest(
                target: target, jwtProofs: try proofs(try await nonce(metadata)),
                responseEncryption: encryption?.requestMember)
            do {
                let answer = try await sendEncoded(
                    request.body, to: metadata.credentialEndpoint, what: "the credential request",
                    endpoint: "credential endpoint", token: token)
                return try Self.mapped { () throws(IssuanceError) in
                    try CredentialResponse(body: try decoded(answer, endpoint: "credential endpoint"))
                }
            } catch .protocolError(.issuer(_, let error)) where error.error == "invalid_nonce" && attempt == 0 {
                attempt += 1
            }
        }
    }

    /// The deferred credential endpoint's answer for `transactionID`; nil while the issuer
    /// says `issuance_pending`.
    public mutating func deferredCredential(_ transactionID: String, endpoint: String, token: TokenResponse)
        async throws(CredentialIssuanceError) -> CredentialResponse?
    {
        let body = DeferredCredentialRequest(
            transactionID: transactionID, responseEncryption: encryption?.requestMember
        )
        .body
        let answer: HTTPResponse
        do {
            answer = try await sendEncoded(
                body, to: endpoint, what: "the deferred credential request", endpoint: "deferred credential endpoint",
                token: token)
        } catch .protocolError(.issuer(_, let error)) where error.error == "issuance_pending" {
            return nil
        }
        return try Self.mapped { () throws(IssuanceError) in
            try CredentialResponse(
                body: try decoded(answer, endpoint: "deferred credential endpoint"),
                endpoint: "deferred credential endpoint")
        }
    }

    /// Sends a notification (OpenID4VCI 1.0 section 11) with `token`'s authorization.
    public mutating func notify(_ request: NotificationRequest, endpoint: String, token: TokenResponse, what: String)
        async throws(CredentialIssuanceError)
    {
        _ = try await send(
            endpoint, what: what, endpoint: "notification endpoint", contentType: "application/json",
            body: request.body, token: token)
    }
}
