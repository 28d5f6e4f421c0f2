import Consent
import Presentation
import PrintableText
import Wallet

/// The credentials a presentation may use, and those it leaves out for their last known
/// status (INVALID or SUSPENDED in their issuer's status list): the consent prompt and the
/// history say why a request for one of those gets nothing.
public struct CredentialSelection: Sendable {
    /// The mdocs valid now, not withheld.
    public var credentials: [PresentableCredential]
    /// The mdocs and SD-JWT VCs withheld for their status.
    public var withheld: [WithheldCredential]

    /// Why a request for `docType` gets nothing, when a credential of that type is withheld.
    public func reason(for docType: String) -> String? {
        withheld.first { $0.docType == docType }.map(Self.reason)
    }

    /// The withheld credential's reason, its doc type escaped.
    static func reason(_ withheld: WithheldCredential) -> String {
        withheld.reason(name: RemoteText.printable(withheld.docType))
    }

    /// `records` with the reason of each document not returned for want of a credential, when
    /// one of its doc type is withheld.
    func explaining(_ records: [PresentationRecord]) -> [PresentationRecord] {
        records.map { record in
            guard case .notReturned = record.outcome, record.credentialID == nil,
                let reason = reason(for: record.docType)
            else { return record }
            var record = record
            record.outcome = .notReturned(reason: reason)
            return record
        }
    }
}

/// The consent prompt of a presentation with withheld credentials: the request's warning
/// names each withheld credential and why (a BLE request lists only the documents the holder
/// can answer, so every withheld one is named).
struct StatusNoticeConsent: ConsentPrompt {
    let inner: any ConsentPrompt
    let selection: CredentialSelection

    func decide(_ request: ConsentRequest) async -> ConsentDecision {
        var request = request
        let notices = selection.withheld.map(CredentialSelection.reason)
        if !notices.isEmpty {
            request.warning = ([request.warning].compactMap { $0 } + notices.map { "Not offered: \($0)." })
                .joined(separator: " ")
        }
        return await inner.decide(request)
    }
}
