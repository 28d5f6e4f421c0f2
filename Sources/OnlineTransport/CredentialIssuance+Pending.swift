import Consent
import Foundation
import ISO18013
import JOSE
import MdocCrypto
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
        let fetcher: HTTPFetcher
        do {
            fetcher = try HTTPFetcher(additionalTrustRoots: tlsCAs, limits: limits)
        } catch {
            throw .setup(error)
        }
        var flow = IssuanceFlow(
            issuance: self, fetcher: fetcher, store: store, consent: AcceptingNothing(),
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
            dpop = nil
            if let dpopID = pending.dpopKeyID, let stored = keys.first(where: { $0.id == dpopID }) {
                do {
                    let key = try store.secureAreas.deviceKey(stored)
                    dpop = try DPoPKey(publicKey: key.publicKey) { input in
                        try key.signature(over: input, algorithm: .es256)
                    }
                } catch let error as SecureAreaError {
                    throw .secureArea(error)
                } catch {
                    throw .protocolError(.unsupported("the pending issuance's DPoP key cannot be used: \(error)"))
                }
            }
            // The issuer's metadata again: whether answers are to be encrypted (with a new key).
            // Where it answers from decides the addresses the stored endpoints may have (none
            // but public ones when it does not answer).
            encryption = nil
            remote = EndpointPolicy(namedBy: "the issuer", partyAddress: nil)
            var answer: HTTPResponse?
            if let url = IssuerIdentifier.wellKnown(pending.issuer, suffix: CredentialIssuerMetadata.wellKnownSuffix) {
                answer = try? await get(
                    url, what: "fetching the issuer's metadata", accept: SignedIssuerMetadata.accept)
            }
            if let answer { remote = EndpointPolicy(namedBy: "the issuer", partyAddress: answer.remoteAddress) }
            if let answer,
                let metadata = try? SignedIssuerMetadata.metadata(
                    body: answer.body, contentType: answer.contentType, issuer: pending.issuer,
                    trustAnchors: issuance.trustAnchors, at: issuance.now())
            {
                do {
                    encryption = try MessageEncryption(metadata: metadata)
                } catch {
                    throw .protocolError(error)
                }
            }
            let token = TokenResponse(accessToken: pending.accessToken, tokenType: pending.tokenType)
            let source = IssuanceSource(
                issuer: pending.issuer, issuerName: pending.issuerName,
                notificationEndpoint: pending.notificationEndpoint)
            do {
                let response = try await poll(
                    pending.endpoint, transactionID: pending.transactionID, interval: Int(pending.interval),
                    token: token, firstAt: 0)
                switch response {
                case .issued(let credentials, let notificationID):
                    // The pending entry keeps no format: an SD-JWT VC is told from an mdoc by its form.
                    ids.append(
                        contentsOf: try await storeCopies(
                            credentials, notificationID: notificationID, keys: proved, docType: pending.docType,
                            sdJWT: credentials.first.map { CredentialStore.sdJWTText(Array($0.utf8)) != nil } ?? false,
                            token: token, source: source, pendingID: pending.id))
                case .deferred:
                    events(.keptPending(pendingID: pending.id, docType: pending.docType))
                    outcome.pending.append(pending.id)
                }
            } catch {
                // Ended by the issuer or refused by our checks: the pending issuance and its keys go.
                if case .exchange = error {
                    outcome.failures.append("pending \(pending.id) (\(pending.docType)) kept: \(error)")
                    outcome.pending.append(pending.id)
                    continue
                }
                outcome.failures.append("pending \(pending.id) (\(pending.docType)) ended: \(error)")
                if let removed = try? store.removePending(id: pending.id, keepKeys: false) {
                    for key in removed { try? store.secureAreas.area(key.area).deleteKey(key) }
                }
            }
        }
        outcome.result = .received(ids)
        outcome.warnings = warnings
        return outcome
    }
}
