import FoundationEssentials
import OnlineTransport
import OpenID4VCI
import SecureArea
import Wallet

extension IssuanceFlow {
    // MARK: - Step 5: one credential

    /// How one credential configuration ended: stored (one ID for an mdoc and all its copies;
    /// one per copy for SD-JWT VCs), or kept pending (deferred).
    enum Received {
        case stored([String])
        case pending(String)
    }

    /// Makes the keys, asks for the credential (waiting for a deferred one up to the wait),
    /// stores it or keeps it pending; the keys go when it fails.
    mutating func receive(_ configuration: CredentialConfiguration, from issuer: OfferedIssuer, token: TokenResponse)
        async throws(CredentialIssuanceError) -> Received
    {
        let area: any SecureArea
        do {
            area = try store.secureAreas.area(issuance.secureArea ?? store.secureAreas.defaultArea)
        } catch {
            throw .secureArea(error)
        }
        let keys = try IssuanceKeys.make(issuance.batch, in: area)
        do {
            return try await request(configuration, keys: keys.keys, from: issuer, token: token)
        } catch {
            keys.discard()
            throw error
        }
    }

    private mutating func request(
        _ configuration: CredentialConfiguration, keys: [StoredKey], from issuer: OfferedIssuer, token: TokenResponse
    ) async throws(CredentialIssuanceError) -> Received {
        let docType = configuration.credentialType
        let target: CredentialRequest.Target =
            token.credentialIdentifiers[configuration.id]?.first.map { .identifier($0) }
            ?? .configuration(configuration.id)
        events(.requestingCredential(docType: docType, copies: keys.count))
        let (secureAreas, now, clientID) = (store.secureAreas, issuance.now, proofIssuer)
        let audience = issuer.metadata.credentialIssuer
        var response = try await client.credential(target, metadata: issuer.metadata, token: token) {
            (nonce) throws(CredentialIssuanceError) in
            try IssuanceKeys.proofs(
                keys, secureAreas: secureAreas, audience: audience, nonce: nonce, issuedAt: now(), clientID: clientID)
        }
        if case .deferred(let transactionID, let interval) = response {
            guard let endpoint = issuer.metadata.deferredCredentialEndpoint else {
                throw .protocolError(
                    .invalidResponse(
                        endpoint: "credential endpoint", "a deferred answer but no deferred_credential_endpoint"))
            }
            events(.deferred(docType: docType, interval: interval))
            response = try await poll(
                endpoint, transactionID: transactionID, interval: interval, token: token, firstAt: interval)
            if case .deferred(let transactionID, let interval) = response {
                let id = try keepPending(
                    PendingIssuance(
                        id: StoredKey.newID(), issuer: issuer.source.issuer, issuerName: issuer.name, docType: docType,
                        transactionID: transactionID, endpoint: endpoint,
                        notificationEndpoint: issuer.source.notificationEndpoint, accessToken: token.accessToken,
                        tokenType: token.tokenType, dpopKeyID: nil, keyIDs: keys.map(\.id), interval: Double(interval)),
                    keys: keys)
                events(.keptPending(pendingID: id, docType: docType))
                return .pending(id)
            }
        }
        guard case .issued(let credentials, let notificationID) = response else { return .stored([]) }
        return .stored(
            try await storeCopies(
                credentials, notificationID: notificationID, keys: keys, docType: docType,
                sdJWT: configuration.isSDJWT, token: token, source: issuer.source, pendingID: nil))
    }

    /// Keeps a deferred issuance in the store with its keys and, for a DPoP-bound token, the
    /// DPoP key, and for encrypted answers the credential request's response key (both wrapped
    /// in the software area).
    func keepPending(_ pending: PendingIssuance, keys: [StoredKey]) throws(CredentialIssuanceError) -> String {
        let software = store.secureAreas.software
        let dpopKey: StoredKey?
        let responseKey: StoredKey?
        do {
            dpopKey = try client.dpop?.ephemeralKey.map { (key) throws(SecureAreaError) in
                try software.importKey(key, passphrase: nil)
            }
            responseKey = try client.encryption.map { (encryption) throws(SecureAreaError) in
                try software.importKey(encryption.responseKeyToKeep, passphrase: nil)
            }
        } catch {
            throw .secureArea(error)
        }
        do {
            return try store.savePending(pending, keys: keys, dpopKey: dpopKey, responseKey: responseKey)
        } catch {
            throw .store(error)
        }
    }

    /// Polls the deferred credential endpoint every `interval` seconds (the issuer may change
    /// it) until the credentials come or the wait is over; the first poll after `firstAt`
    /// seconds.
    mutating func poll(
        _ endpoint: String, transactionID: String, interval: Int, token: TokenResponse, firstAt: Int
    ) async throws(CredentialIssuanceError) -> CredentialResponse {
        let deadline = ContinuousClock.now + issuance.wait
        var transactionID = transactionID
        var interval = max(interval, 1)
        var delay = max(firstAt, 0)
        while ContinuousClock.now + .seconds(delay) <= deadline {
            if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
            delay = interval
            switch try await client.deferredCredential(transactionID, endpoint: endpoint, token: token) {
            case nil: continue
            case .issued(let credentials, let notificationID)?:
                return .issued(credentials: credentials, notificationID: notificationID)
            case .deferred(let id, let next)?:
                transactionID = id
                interval = max(next, 1)
                delay = interval
            }
        }
        return .deferred(transactionID: transactionID, interval: interval)
    }
}
