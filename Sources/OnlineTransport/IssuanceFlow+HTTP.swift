import Consent
import Foundation
import ISO18013
import JOSE
import MdocCrypto
import OpenID4VCI
import PrintableText
import SecureArea
import Wallet

extension IssuanceFlow {
    // MARK: - Step 6: notifications

    /// Sends a notification when the issuer asked for them; returns whether it was delivered.
    mutating func notify(
        _ source: IssuanceSource, token: TokenResponse, event: NotificationRequest.Event, description: String?
    ) async -> Bool {
        guard let id = source.notificationID, let endpoint = source.notificationEndpoint else { return false }
        let body = NotificationRequest(notificationID: id, event: event, eventDescription: description).body
        do {
            _ = try await send(
                endpoint, what: "the notification", endpoint: "notification endpoint", contentType: "application/json",
                body: body, token: token)
            events(.notified(event: event.rawValue))
            return true
        } catch {
            warnings.append("the issuer could not be notified (\(event.rawValue)): \(error)")
            return false
        }
    }

    // MARK: - HTTP

    /// GETs what the user chose (an offer, the credential issuer's metadata): any address.
    func get(_ url: String, what: String, accept: String = "application/json") async throws(CredentialIssuanceError)
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

    func exchange(what: String, _ body: () async throws(HTTPFetchError) -> HTTPResponse)
        async throws(CredentialIssuanceError) -> HTTPResponse
    {
        do {
            return try await body()
        } catch {
            throw .exchange(what: what, error)
        }
    }

    /// POSTs `body` with the access token (when given) and a DPoP proof (when DPoP is on);
    /// answers a `use_dpop_nonce` challenge once with the server's nonce. A non-2xx answer
    /// becomes the issuer's OAuth error, or an unexpected status. `url` is an endpoint the
    /// metadata named: ``remote`` decides the addresses it may have.
    mutating func send(
        _ url: String, what: String, endpoint: String, contentType: String, body: [UInt8], token: TokenResponse?
    ) async throws(CredentialIssuanceError) -> HTTPResponse {
        let host = (try? HTTPFetcher.checkedHost(url)) ?? url
        for attempt in 0..<2 {
            var headers = [("Content-Type", contentType), ("Accept", "application/json")]
            if let token { headers.append(("Authorization", token.authorization)) }
            if let dpop {
                do {
                    headers.append(
                        (
                            "DPoP",
                            try dpop.proof(
                                method: "POST", url: url, issuedAt: issuance.now(),
                                accessToken: token?.isDPoP == true ? token?.accessToken : nil, nonce: dpopNonces[host])
                        ))
                } catch {
                    throw .protocolError(error)
                }
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

    /// Keeps a `DPoP-Nonce` the server sent; returns whether one came.
    @discardableResult
    mutating func noteDPoPNonce(_ response: HTTPResponse) -> Bool {
        guard let nonce = response.headers["dpop-nonce"], !nonce.isEmpty else { return false }
        dpopNonces[response.host] = nonce
        return true
    }

    /// `error="..."` of a `WWW-Authenticate` header (RFC 6750 section 3).
    static func wwwAuthenticateError(_ header: String) -> String? {
        guard let range = header.range(of: "error=\"") else { return nil }
        let rest = header[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return RemoteText.printable(String(rest[..<end]), limit: 64)
    }
}
