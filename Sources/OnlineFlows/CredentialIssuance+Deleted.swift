import Consent
import Curl
import FoundationEssentials
import ISO18013
import JOSE
import MdocCrypto
import OnlineTransport
import OpenID4VCI
import SecureArea
import Wallet

extension CredentialIssuance {
    /// Tells the issuer of a deleted credential (`credential_deleted`, OpenID4VCI 1.0 section
    /// 11) with the Bearer token kept for it.
    public static func notifyDeleted(
        _ pending: PendingNotification, tlsCAs: [Certificate], limits: HTTPFetcher.Limits = HTTPFetcher.Limits()
    ) async throws(CredentialIssuanceError) {
        var client = try IssuerClient(tlsCAs: tlsCAs, limits: limits) { Date() }
        // The endpoint was named by the issuer's metadata: it may lead where the issuer itself is.
        var issuerAddresses: [IPAddress] = []
        if let host = URLComponents(string: pending.issuer)?.host { issuerAddresses = await IPAddress.resolve(host) }
        client.remote = EndpointPolicy(namedBy: "the issuer", partyAddresses: issuerAddresses)
        try await client.notify(
            NotificationRequest(notificationID: pending.notificationID, event: .credentialDeleted),
            endpoint: pending.endpoint, token: TokenResponse(accessToken: pending.token, tokenType: "Bearer"),
            what: "the credential_deleted notification")
    }
}
