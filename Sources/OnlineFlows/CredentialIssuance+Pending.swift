import Consent
import FoundationEssentials
import JOSE
import OnlineTransport
import OpenID4VCI
import SecureArea
import Wallet

extension CredentialIssuance {
    /// Resumes every pending deferred issuance of the store (`credentials receive --pending`):
    /// polls each for up to ``wait``, stores what is ready (checked as at issuance), drops what
    /// the issuer ended or our checks refused (with its keys), keeps the rest.
    public func resumePending(
        store: CredentialStore, events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws(CredentialIssuanceError) -> Outcome {
        var flow = IssuanceFlow(
            issuance: self, client: try IssuerClient(tlsCAs: tlsCAs, limits: limits, now: now), store: store,
            consent: AcceptingNothing(),
            transactionCode: { _ throws(CredentialIssuanceError) in
                throw .transactionCodeUnavailable("a pending issuance is resumed without one")
            },
            events: events)
        return try await flow.resumeAll()
    }
}

/// Resuming asks no one: consent was given when the offer was accepted.
private struct AcceptingNothing: ConsentPrompt {
    func decide(_ request: ConsentRequest) async -> ConsentDecision { .decline }
}

extension IssuanceFlow {
    mutating func resumeAll() async throws(CredentialIssuanceError) -> CredentialIssuance.Outcome {
        let all: [PendingIssuance]
        let keys: [StoredKey]
        do {
            all = try store.pendingIssuances()
            keys = try store.keys().map(\.key)
        } catch {
            throw .store(error)
        }
        var outcome = CredentialIssuance.Outcome(result: .received([]), issuerName: all.first?.issuerName ?? "-")
        var ids: [String] = []
        for pending in all {
            let proved = pending.keyIDs.compactMap { id in keys.first { $0.id == id } }
            guard proved.count == pending.keyIDs.count else {
                outcome.failures.append(
                    "pending \(pending.id) (\(pending.docType)): its keys are missing from the store")
                continue
            }
            try restoreDPoP(of: pending, from: keys)
            try await refreshMetadata(of: pending.issuer)
            try restoreResponseKey(of: pending, from: keys)
            ids += await resume(pending, keys: proved, into: &outcome)
        }
        outcome.result = .received(ids)
        outcome.warnings = warnings
        return outcome
    }

    /// The DPoP key the pending issuance's token is bound to, when it has one.
    private mutating func restoreDPoP(of pending: PendingIssuance, from keys: [StoredKey])
        throws(CredentialIssuanceError)
    {
        client.dpop = nil
        guard let dpopID = pending.dpopKeyID, let stored = keys.first(where: { $0.id == dpopID }) else { return }
        do {
            let key = try store.secureAreas.deviceKey(stored)
            client.dpop = try DPoPKey(publicKey: key.publicKey) { input in
                try key.signature(over: input, algorithm: .es256)
            }
        } catch let error as SecureAreaError {
            throw .secureArea(error)
        } catch {
            throw .protocolError(.unsupported("the pending issuance's DPoP key cannot be used: \(error)"))
        }
    }

    /// Answers encrypted to the response key of the original credential request are taken
    /// too (the issuer may encrypt the deferred answer to it rather than to the new one).
    private mutating func restoreResponseKey(of pending: PendingIssuance, from keys: [StoredKey])
        throws(CredentialIssuanceError)
    {
        guard let encryption = client.encryption, let id = pending.responseKeyID,
            let stored = keys.first(where: { $0.id == id })
        else { return }
        let key: SecureAreaKey
        do {
            key = try store.secureAreas.deviceKey(stored)
        } catch {
            throw .secureArea(error)
        }
        client.encryption = encryption.acceptingAnswers(toEarlierKeyOn: stored.curve) { (peer) throws(JOSEError) in
            do {
                return try key.keyAgreement(with: peer)
            } catch {
                throw .invalidKey("the kept response key cannot be used: \(error)")
            }
        }
    }

    /// The issuer's metadata again: whether answers are to be encrypted (with a new key).
    /// Where it answers from decides the addresses the stored endpoints may have (none but
    /// public ones when it does not answer).
    private mutating func refreshMetadata(of issuer: String) async throws(CredentialIssuanceError) {
        client.remote = EndpointPolicy(namedBy: "the issuer", partyAddress: nil)
        let answer = try? await client.fetchMetadata(of: issuer)
        let metadata = answer.flatMap { answer in
            try? IssuerClient.parseMetadata(
                answer, issuer: issuer, trustAnchors: issuance.trustAnchors, at: issuance.now())
        }
        try client.useEncryption(of: metadata)
    }

    /// Polls one pending issuance; returns the IDs stored. Ended by the issuer or refused by
    /// our checks, the pending issuance and its keys go; not reached, it is kept.
    private mutating func resume(
        _ pending: PendingIssuance, keys: [StoredKey], into outcome: inout CredentialIssuance.Outcome
    ) async -> [String] {
        let token = TokenResponse(accessToken: pending.accessToken, tokenType: pending.tokenType)
        let source = IssuanceSource(
            issuer: pending.issuer, issuerName: pending.issuerName, notificationEndpoint: pending.notificationEndpoint)
        do {
            let response = try await poll(
                pending.endpoint, transactionID: pending.transactionID, interval: Int(pending.interval),
                token: token, firstAt: 0)
            guard case .issued(let credentials, let notificationID) = response else {
                events(.keptPending(pendingID: pending.id, docType: pending.docType))
                outcome.pending.append(pending.id)
                return []
            }
            // The pending entry keeps no format: an SD-JWT VC is told from an mdoc by its form.
            return try await storeCopies(
                credentials, notificationID: notificationID, keys: keys, docType: pending.docType,
                sdJWT: credentials.first.map { CredentialStore.sdJWTText(Array($0.utf8)) != nil } ?? false,
                token: token, source: source, pendingID: pending.id)
        } catch .exchange(let what, let error) {
            let error = CredentialIssuanceError.exchange(what: what, error)
            outcome.failures.append("pending \(pending.id) (\(pending.docType)) kept: \(error)")
            outcome.pending.append(pending.id)
        } catch {
            outcome.failures.append("pending \(pending.id) (\(pending.docType)) ended: \(error)")
            if let removed = try? store.removePending(id: pending.id, keepKeys: false) {
                for key in removed { try? store.secureAreas.area(key.area).deleteKey(key) }
            }
        }
        return []
    }
}
