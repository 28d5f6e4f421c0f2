import Consent
import FoundationEssentials
import Presentation

extension StoredCredential {
    /// The credential as the presentation engines take it.
    public var presentable: PresentableCredential {
        PresentableCredential(id: id, docType: docType, issuerSigned: issuerSigned, deviceKey: deviceKey)
    }
}

extension CredentialStore {
    /// Every stored credential valid at `time`, ready to present (both BLE and online flows
    /// answer from this). A credential whose row cannot be read back is left out and passed to
    /// `unreadable`, so one damaged row does not stop the others from being presented. A
    /// credential whose last known status is INVALID or SUSPENDED is left out and passed to
    /// `withheld` (``LastKnownStatus/withholdsPresentation``).
    public func presentableCredentials(
        at time: Date = Date(), unreadable: (UnreadableRow) -> Void = { _ in },
        withheld: (WithheldCredential) -> Void = { _ in }
    ) throws(WalletError) -> [PresentableCredential] {
        let (readable, broken) = try readCredentials()
        for row in broken { unreadable(row) }
        let valid = readable.filter { $0.validFrom <= time && time <= $0.validUntil }
        let statuses = try withheldStatuses()
        for credential in valid {
            guard let status = statuses[credential.id] else { continue }
            withheld(
                WithheldCredential(id: credential.id, format: "mso_mdoc", docType: credential.docType, status: status))
        }
        return valid.filter { statuses[$0.id] == nil }.map(\.presentable)
    }

    /// Writes what a presentation did to the history: one entry per document, never values.
    public func record(_ records: [PresentationRecord], channel: PresentationChannel, at time: Date = Date())
        throws(WalletError)
    {
        for r in records {
            let decision: HistoryDecision
            switch r.outcome {
            case .sent:
                decision = .sent
                // One-time use: the next presentation takes another copy while one is left.
                if let id = r.credentialID { try markPresented(credentialID: id, at: time) }
            case .declined: decision = .declined
            case .notReturned(let reason): decision = .failed(reason: reason)
            }
            try record(
                HistoryEntry(
                    time: time, channel: channel, requester: r.requester, docType: r.docType,
                    elementsSent: r.elementsSent, decision: decision, useCase: r.useCase))
        }
    }
}
