import Base64
import FoundationEssentials
import JOSE
import OnlineTransport
import OpenID4VCI
import SecureArea
import Wallet

extension IssuanceFlow {
    // MARK: - Step 6: store, notify, record

    /// Checks the credentials of one configuration and stores them (all copies or none);
    /// notifies the issuer either way. `sdJWT`: the credentials are compact SD-JWT VCs (their
    /// `vct` is `docType`), else base64url IssuerSigned.
    mutating func storeCopies(
        _ credentials: [String], notificationID: String?, keys: [StoredKey], docType: String, sdJWT: Bool,
        token: TokenResponse, source: IssuanceSource, pendingID: String?
    ) async throws(CredentialIssuanceError) -> [String] {
        var source = source
        source.notificationID = notificationID
        source.notificationToken = token.isDPoP ? nil : token.accessToken
        let issued: IssuedCredentials
        do {
            issued = sdJWT ? .sdJWT(credentials) : .mdoc(try Self.issuerSigned(credentials, keyCount: keys.count))
        } catch {
            let notified = await notify(
                source, token: token, event: .credentialFailure, description: "malformed credential")
            throw .refused(docType: docType, error, notified: notified)
        }
        let ids: [String]
        do {
            ids = try store.receive(
                issued, keys: keys, docType: docType, from: source, trustAnchors: issuance.trustAnchors,
                at: issuance.now(), completingPending: pendingID, scopedAnchors: issuance.scopedAnchors)
        } catch {
            let notified = await notify(
                source, token: token, event: .credentialFailure, description: "the holder's checks refused it")
            try? store.recordIssuance(
                from: source, docType: docType, decision: .failed(reason: "refused: \(Self.reason(error))"))
            throw .refused(docType: docType, error, notified: notified)
        }
        events(.stored(credentialID: ids[0], docType: docType, copies: keys.count))
        _ = await notify(source, token: token, event: .credentialAccepted, description: nil)
        return ids
    }

    /// The IssuerSigned bytes of each credential (base64url), one per key.
    static func issuerSigned(_ credentials: [String], keyCount: Int) throws(WalletError) -> [[UInt8]] {
        guard credentials.count == keyCount else {
            throw .malformedDocument(
                document: 1, reason: "the issuer sent \(credentials.count) credentials for \(keyCount) keys")
        }
        var copies: [[UInt8]] = []
        for (n, text) in credentials.enumerated() {
            guard let bytes = Base64URL.decode(text) else {
                throw .malformedDocument(document: n + 1, reason: "the credential is not base64url")
            }
            copies.append(bytes)
        }
        return copies
    }

    /// Sends a notification when the issuer asked for them; returns whether it was delivered.
    mutating func notify(
        _ source: IssuanceSource, token: TokenResponse, event: NotificationRequest.Event, description: String?
    ) async -> Bool {
        guard let id = source.notificationID, let endpoint = source.notificationEndpoint else { return false }
        let request = NotificationRequest(notificationID: id, event: event, eventDescription: description)
        do {
            try await client.notify(request, endpoint: endpoint, token: token, what: "the notification")
            events(.notified(event: event.rawValue))
            return true
        } catch {
            warnings.append("the issuer could not be notified (\(event.rawValue)): \(error)")
            return false
        }
    }

    /// The words of a refusal for the history: the kind of check that failed, no values.
    static func reason(_ error: WalletError) -> String {
        switch error {
        case .issuerAuthenticationFailed: return "issuer data authentication failed"
        case .expired: return "expired"
        case .notYetValid: return "not yet valid"
        case .docTypeMismatch: return "another docType than offered"
        case .keyDoesNotMatch, .deviceKeyMismatch: return "bound to another key than the one proved"
        case .malformedDocument: return "malformed"
        case .alreadyStored: return "already stored"
        case .vctMismatch: return "another vct than offered"
        case .sdJWTKeyMismatch: return "bound to another key than the one proved"
        case .sdJWTRefused(.issuerNotTrusted), .sdJWTRefused(.jose):
            return "the SD-JWT VC's issuer signature or chain failed"
        case .sdJWTRefused(.expired): return "expired"
        case .sdJWTRefused(.notYetValid): return "not yet valid"
        case .sdJWTRefused: return "the SD-JWT VC failed its checks (form, disclosures or type)"
        default: return "\(error)"
        }
    }
}
