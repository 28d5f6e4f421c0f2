import Consent
import Foundation
import ISO18013
import JOSE
import MdocCrypto
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

    mutating func receive(
        _ configuration: CredentialConfiguration, metadata: CredentialIssuerMetadata, token: TokenResponse,
        source: IssuanceSource
    ) async throws(CredentialIssuanceError) -> Received {
        let docType = configuration.credentialType
        let area: any SecureArea
        do {
            area = try store.secureAreas.area(issuance.secureArea ?? store.secureAreas.defaultArea)
        } catch {
            throw .secureArea(error)
        }
        var keys: [StoredKey] = []
        for _ in 0..<issuance.batch {
            do {
                keys.append(try area.createKey(KeySettings()))
            } catch {
                Self.discard(keys, in: area)
                throw .secureArea(error)
            }
        }
        do {
            return try await receive(
                configuration, docType: docType, sdJWT: configuration.isSDJWT, keys: keys, metadata: metadata,
                token: token, source: source)
        } catch {
            Self.discard(keys, in: area)
            throw error
        }
    }

    mutating func receive(
        _ configuration: CredentialConfiguration, docType: String, sdJWT: Bool, keys: [StoredKey],
        metadata: CredentialIssuerMetadata, token: TokenResponse, source: IssuanceSource
    ) async throws(CredentialIssuanceError) -> Received {
        let target: CredentialRequest.Target =
            token.credentialIdentifiers[configuration.id]?.first.map { .identifier($0) }
            ?? .configuration(configuration.id)
        events(.requestingCredential(docType: docType, copies: keys.count))
        var answer: HTTPResponse?
        for attempt in 0..<2 {
            let nonce = try await cNonce(metadata)
            let proofs = try makeProofs(keys, audience: metadata.credentialIssuer, nonce: nonce)
            let request = try encoded(
                CredentialRequest(target: target, jwtProofs: proofs, responseEncryption: encryption?.requestMember).body
            )
            do {
                answer = try await send(
                    metadata.credentialEndpoint, what: "the credential request", endpoint: "credential endpoint",
                    contentType: request.contentType, body: request.body, token: token)
                break
            } catch .protocolError(.issuer(_, let error)) where error.error == "invalid_nonce" && attempt == 0 {
                // The c_nonce went stale between the nonce and the credential request: once more.
                continue
            }
        }
        guard let answer else {
            throw .protocolError(.invalidResponse(endpoint: "credential endpoint", "no answer"))
        }
        let response: CredentialResponse
        do {
            response = try CredentialResponse(body: try decoded(answer, endpoint: "credential endpoint"))
        } catch {
            throw .protocolError(error)
        }
        switch response {
        case .issued(let credentials, let notificationID):
            return .stored(
                try await storeCopies(
                    credentials, notificationID: notificationID, keys: keys, docType: docType, sdJWT: sdJWT,
                    token: token, source: source, pendingID: nil))
        case .deferred(let transactionID, let interval):
            guard let endpoint = metadata.deferredCredentialEndpoint else {
                throw .protocolError(
                    .invalidResponse(
                        endpoint: "credential endpoint", "a deferred answer but no deferred_credential_endpoint"))
            }
            events(.deferred(docType: docType, interval: interval))
            let polled = try await poll(
                endpoint, transactionID: transactionID, interval: interval, token: token, firstAt: interval)
            switch polled {
            case .issued(let credentials, let notificationID):
                return .stored(
                    try await storeCopies(
                        credentials, notificationID: notificationID, keys: keys, docType: docType, sdJWT: sdJWT,
                        token: token, source: source, pendingID: nil))
            case .deferred(let transactionID, let interval):
                let id = try keepPending(
                    PendingIssuance(
                        id: StoredKey.newID(), issuer: source.issuer, issuerName: source.issuerName, docType: docType,
                        transactionID: transactionID, endpoint: endpoint,
                        notificationEndpoint: source.notificationEndpoint, accessToken: token.accessToken,
                        tokenType: token.tokenType, dpopKeyID: nil, keyIDs: keys.map(\.id), interval: Double(interval)),
                    keys: keys)
                events(.keptPending(pendingID: id, docType: docType))
                return .pending(id)
            }
        }
    }

    /// A request body as the issuer takes it: encrypted to its key when it takes encrypted
    /// requests, else JSON.
    func encoded(_ json: [UInt8]) throws(CredentialIssuanceError) -> (body: [UInt8], contentType: String) {
        guard let encryption else { return (json, "application/json") }
        do {
            return try encryption.encode(json)
        } catch {
            throw .protocolError(error)
        }
    }

    /// An answer's JSON: decrypted when encryption was asked for (an unencrypted one is then
    /// refused).
    func decoded(_ answer: HTTPResponse, endpoint: String) throws(IssuanceError) -> [UInt8] {
        guard let encryption else { return answer.body }
        return try encryption.decode(answer.body, contentType: answer.contentType, endpoint: endpoint)
    }

    /// Keeps a deferred issuance in the store with its keys and, for a DPoP-bound token, the
    /// DPoP key (wrapped in the software area).
    func keepPending(_ pending: PendingIssuance, keys: [StoredKey]) throws(CredentialIssuanceError) -> String {
        var dpopKey: StoredKey?
        if let key = dpop?.ephemeralKey {
            do {
                dpopKey = try store.secureAreas.software.importKey(key, passphrase: nil)
            } catch {
                throw .secureArea(error)
            }
        }
        do {
            return try store.savePending(pending, keys: keys, dpopKey: dpopKey)
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
            let answer: HTTPResponse
            let request = try encoded(
                DeferredCredentialRequest(transactionID: transactionID, responseEncryption: encryption?.requestMember)
                    .body)
            do {
                answer = try await send(
                    endpoint, what: "the deferred credential request", endpoint: "deferred credential endpoint",
                    contentType: request.contentType, body: request.body, token: token)
            } catch .protocolError(.issuer(_, let error)) where error.error == "issuance_pending" {
                continue
            }
            let response: CredentialResponse
            do {
                response = try CredentialResponse(
                    body: try decoded(answer, endpoint: "deferred credential endpoint"),
                    endpoint: "deferred credential endpoint")
            } catch {
                throw .protocolError(error)
            }
            switch response {
            case .issued: return response
            case .deferred(let id, let next):
                transactionID = id
                interval = max(next, 1)
                delay = interval
            }
        }
        return .deferred(transactionID: transactionID, interval: interval)
    }

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
        var copies: [ReceivedCopy] = []
        if !sdJWT {
            do {
                copies = try Self.pair(credentials, with: keys)
            } catch {
                let notified = await notify(
                    source, token: token, event: .credentialFailure, description: "malformed credential")
                throw .refused(docType: docType, error, notified: notified)
            }
        }
        let ids: [String]
        do {
            if sdJWT {
                ids = try store.receiveSDJWT(
                    credentials, keys: keys, vct: docType, from: source, trustAnchors: issuance.trustAnchors,
                    at: issuance.now(), completingPending: pendingID)
            } else {
                ids = [
                    try store.receive(
                        copies, docType: docType, from: source, trustAnchors: issuance.trustAnchors,
                        at: issuance.now(), completingPending: pendingID)
                ]
            }
        } catch {
            let notified = await notify(
                source, token: token, event: .credentialFailure, description: "the holder's checks refused it")
            try? store.recordIssuance(
                from: source, docType: docType, decision: .failed(reason: "refused: \(Self.reason(error))"))
            throw .refused(docType: docType, error, notified: notified)
        }
        if sdJWT {
            for id in ids { events(.stored(credentialID: id, docType: docType, copies: 1)) }
        } else {
            events(.stored(credentialID: ids[0], docType: docType, copies: copies.count))
        }
        _ = await notify(source, token: token, event: .credentialAccepted, description: nil)
        return ids
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

    /// Decodes each credential (base64url IssuerSigned) and pairs it with the key its MSO
    /// names; a credential whose MSO names none of our keys keeps its position's key (the
    /// store's check then refuses it).
    static func pair(_ credentials: [String], with keys: [StoredKey]) throws(WalletError) -> [ReceivedCopy] {
        guard credentials.count == keys.count else {
            throw .malformedDocument(
                document: 1, reason: "the issuer sent \(credentials.count) credentials for \(keys.count) keys")
        }
        var remaining = keys
        var copies: [ReceivedCopy] = []
        for (n, text) in credentials.enumerated() {
            guard let bytes = JOSEBase64URL.decode(text) else {
                throw .malformedDocument(document: n + 1, reason: "the credential is not base64url")
            }
            let msoKey = try? IssuerSigned(bytes: bytes).mobileSecurityObject().mso.deviceKey.publicKey()
            let index =
                remaining.firstIndex { key in msoKey.map { (try? key.publicKey()) == $0 } ?? false } ?? 0
            copies.append(ReceivedCopy(issuerSignedBytes: bytes, key: remaining.remove(at: index)))
        }
        return copies
    }

    static func discard(_ keys: [StoredKey], in area: any SecureArea) {
        for key in keys { try? area.deleteKey(key) }
    }

    /// A fresh `c_nonce` from the nonce endpoint (nil when the issuer has none).
    mutating func cNonce(_ metadata: CredentialIssuerMetadata) async throws(CredentialIssuanceError) -> String? {
        guard let endpoint = metadata.nonceEndpoint else { return nil }
        let response = try await exchange(what: "getting a nonce") { () async throws(HTTPFetchError) in
            try await fetcher.send(
                endpoint, method: "POST", headers: [("Accept", "application/json")], body: nil, policy: remote)
        }
        noteDPoPNonce(response)
        guard response.status == 200 else {
            throw .unexpectedStatus(what: "the nonce endpoint", host: response.host, status: response.status)
        }
        do {
            return try NonceResponse(body: response.body).cNonce
        } catch {
            throw .protocolError(error)
        }
    }

    func makeProofs(_ keys: [StoredKey], audience: String, nonce: String?) throws(CredentialIssuanceError)
        -> [String]
    {
        var proofs: [String] = []
        for key in keys {
            let deviceKey: SecureAreaKey
            do {
                deviceKey = try store.secureAreas.deviceKey(key)
            } catch {
                throw .secureArea(error)
            }
            guard let algorithm = JWSAlgorithm.forSigning(with: key.curve) else {
                throw .protocolError(.unsupported("a \(key.curve.rawValue) key cannot sign a JWT proof"))
            }
            do {
                proofs.append(
                    try KeyProof.make(
                        publicKey: deviceKey.publicKey, audience: audience, nonce: nonce, issuedAt: issuance.now(),
                        clientID: proofIssuer
                    ) { (input) throws(SecureAreaError) in
                        try deviceKey.signature(over: input, algorithm: algorithm.signatureAlgorithm)
                    })
            } catch {
                throw .protocolError(error)
            }
        }
        return proofs
    }

}
