import FoundationEssentials
import OpenID4VCI
import PrintableText

extension IssuerClient {
    /// POSTs `body` with the access token (when given) and a DPoP proof (when DPoP is on);
    /// answers a `use_dpop_nonce` challenge once with the server's nonce. A non-2xx answer
    /// becomes the issuer's OAuth error, or an unexpected status. `url` is an endpoint the
    /// metadata named: ``remote`` decides the addresses it may have.
    public mutating func send(
        _ url: String, what: String, endpoint: String, contentType: String, body: [UInt8], token: TokenResponse?
    ) async throws(CredentialIssuanceError) -> HTTPResponse {
        let host = (try? HTTPFetcher.checkedHost(url)) ?? url
        for attempt in 0..<2 {
            var headers = [("Content-Type", contentType), ("Accept", "application/json")]
            if let token { headers.append(("Authorization", token.authorization)) }
            if let dpop {
                let proof = try Self.mapped { () throws(IssuanceError) in
                    try dpop.proof(
                        method: "POST", url: url, issuedAt: now(),
                        accessToken: token?.isDPoP == true ? token?.accessToken : nil, nonce: dpopNonces[host])
                }
                headers.append(("DPoP", proof))
            }
            let response = try await exchange(what: what) { () async throws(HTTPFetchError) in
                try await fetcher.send(url, method: "POST", headers: headers, body: body, policy: remote)
            }
            let challenged = noteDPoPNonce(response)
            if response.isSuccess { return response }
            let error = OAuthErrorResponse(body: response.body)
            let nonceChallenge =
                (error?.isUseDPoPNonce ?? false)
                || (response.status == 401 && (response.headers["www-authenticate"] ?? "").contains("use_dpop_nonce"))
            if dpop != nil, nonceChallenge, challenged, attempt == 0 { continue }
            if let error { throw .protocolError(.issuer(endpoint: endpoint, error)) }
            if let header = response.headers["www-authenticate"], let code = Self.wwwAuthenticateError(header) {
                throw .protocolError(.issuer(endpoint: endpoint, OAuthErrorResponse(error: code)))
            }
            throw .unexpectedStatus(what: what, host: response.host, status: response.status)
        }
        throw .protocolError(.invalidResponse(endpoint: endpoint, "the DPoP nonce was refused twice"))
    }

    /// POSTs a JSON request body as the issuer takes it: encrypted to its key when it takes
    /// encrypted requests, else JSON.
    public mutating func sendEncoded(
        _ json: [UInt8], to url: String, what: String, endpoint: String, token: TokenResponse
    ) async throws(CredentialIssuanceError) -> HTTPResponse {
        var request = (body: json, contentType: "application/json")
        if let encryption {
            request = try Self.mapped { () throws(IssuanceError) in try encryption.encode(json) }
        }
        return try await send(
            url, what: what, endpoint: endpoint, contentType: request.contentType, body: request.body, token: token)
    }

    /// An answer's JSON: decrypted when encryption was asked for (an unencrypted one is then
    /// refused).
    public func decoded(_ answer: HTTPResponse, endpoint: String) throws(IssuanceError) -> [UInt8] {
        guard let encryption else { return answer.body }
        return try encryption.decode(answer.body, contentType: answer.contentType, endpoint: endpoint)
    }

    /// Keeps a `DPoP-Nonce` the server sent; returns whether one came.
    @discardableResult
    public mutating func noteDPoPNonce(_ response: HTTPResponse) -> Bool {
        guard let nonce = response.headers["dpop-nonce"], !nonce.isEmpty else { return false }
        dpopNonces[response.host] = nonce
        return true
    }

    /// `error="..."` of a `WWW-Authenticate` header (RFC 6750 section 3).
    public static func wwwAuthenticateError(_ header: String) -> String? {
        guard let range = header.firstRange(of: "error=\"") else { return nil }
        let rest = header[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return RemoteText.printable(String(rest[..<end]), limit: 64)
    }
}
