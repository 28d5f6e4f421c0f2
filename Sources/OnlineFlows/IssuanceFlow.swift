import Consent
import FoundationEssentials
import OnlineTransport
import OpenID4VCI
import Wallet

/// One run of the issuance flow: the six steps of ``CredentialIssuance`` in order, over an
/// ``IssuerClient``.
struct IssuanceFlow {
    let issuance: CredentialIssuance
    let store: CredentialStore
    let consent: any ConsentPrompt
    let transactionCode: CredentialIssuance.TransactionCodeSource
    let events: @Sendable (CredentialIssuance.Event) -> Void

    var client: IssuerClient
    /// `iss` of key proofs: the client ID in the authorization code flow, none in anonymous
    /// pre-authorized access.
    var proofIssuer: String?
    var warnings: [String] = []

    init(
        issuance: CredentialIssuance, client: IssuerClient, store: CredentialStore, consent: any ConsentPrompt,
        transactionCode: @escaping CredentialIssuance.TransactionCodeSource,
        events: @escaping @Sendable (CredentialIssuance.Event) -> Void
    ) {
        self.issuance = issuance
        self.client = client
        self.store = store
        self.consent = consent
        self.transactionCode = transactionCode
        self.events = events
    }

    mutating func run(_ text: String) async throws(CredentialIssuanceError) -> CredentialIssuance.Outcome {
        let offer = try await obtainOffer(text)  // 1. the offer
        let issuer = try await discover(offer)  // 2. metadata
        let accepted = await ask(issuer)  // 3. consent, before anything is requested
        guard !accepted.isEmpty else {
            for configuration in issuer.configurations {
                try? store.recordIssuance(
                    from: issuer.source, docType: configuration.credentialType, decision: .declined)
            }
            return CredentialIssuance.Outcome(result: .declined, issuerName: issuer.name)
        }
        do {
            let token = try await accessToken(issuer, accepted: accepted)  // 4. the access token
            var outcome = CredentialIssuance.Outcome(result: .received([]), issuerName: issuer.name)
            var ids: [String] = []
            for configuration in accepted {  // 5. and 6. the credentials, stored and notified
                switch try await receive(configuration, from: issuer, token: token) {
                case .stored(let stored): ids.append(contentsOf: stored)
                case .pending(let id): outcome.pending.append(id)
                }
            }
            outcome.result = .received(ids)
            outcome.warnings = warnings
            return outcome
        } catch {
            recordFailure(error, of: accepted, from: issuer.source)
            throw error
        }
    }

    /// The history records an issuance that failed after consent (a refusal by our checks is
    /// recorded where it happens, with its reason).
    func recordFailure(
        _ error: CredentialIssuanceError, of accepted: [CredentialConfiguration], from source: IssuanceSource
    ) {
        if case .refused = error { return }
        for configuration in accepted {
            try? store.recordIssuance(
                from: source, docType: configuration.credentialType,
                decision: .failed(reason: Self.historyReason(error)))
        }
    }

    /// What the history says of a failure: the kind of failure and the issuer's OAuth error
    /// code, never a value.
    static func historyReason(_ error: CredentialIssuanceError) -> String {
        switch error {
        case .protocolError(.issuer(let endpoint, let oauth)): return "the \(endpoint) answered \(oauth.error)"
        case .protocolError: return "the issuer's answer could not be used"
        case .exchange(let what, _), .unexpectedStatus(let what, _, _): return "\(what) failed"
        case .secureArea: return "the secure area could not make or use a key"
        case .transactionCodeUnavailable: return "no transaction code was given"
        case .store: return "the store could not be written"
        case .setup: return "the HTTPS client could not be set up"
        case .refused: return "refused by the holder's checks"
        }
    }
}
