import Consent
import Curl
import Foundation
import ISO18013
import JOSE
import MdocCrypto
import OpenID4VCI
import SecureArea
import Wallet

extension CredentialIssuance {
    /// Tells the issuer of a deleted credential (`credential_deleted`, OpenID4VCI 1.0 section
    /// 11) with the Bearer token kept for it.
    public static func notifyDeleted(
        _ pending: PendingNotification, tlsCAs: [Certificate], limits: HTTPFetcher.Limits = HTTPFetcher.Limits()
    ) async throws(CredentialIssuanceError) {
        let fetcher: HTTPFetcher
        do {
            fetcher = try HTTPFetcher(additionalTrustRoots: tlsCAs, limits: limits)
        } catch {
            throw .setup(error)
        }
        let body = NotificationRequest(notificationID: pending.notificationID, event: .credentialDeleted).body
        // The endpoint was named by the issuer's metadata: it may lead where the issuer itself is.
        var issuerAddresses: [IPAddress] = []
        if let host = URLComponents(string: pending.issuer)?.host { issuerAddresses = await IPAddress.resolve(host) }
        let policy = EndpointPolicy(namedBy: "the issuer", partyAddresses: issuerAddresses)
        let response: HTTPResponse
        do {
            response = try await fetcher.send(
                pending.endpoint, method: "POST",
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(pending.token)")],
                body: body, policy: policy)
        } catch {
            throw .exchange(what: "the credential_deleted notification", error)
        }
        guard response.isSuccess else {
            if let error = OAuthErrorResponse(body: response.body) {
                throw .protocolError(.issuer(endpoint: "notification endpoint", error))
            }
            throw .unexpectedStatus(
                what: "the credential_deleted notification", host: response.host, status: response.status)
        }
    }
}
