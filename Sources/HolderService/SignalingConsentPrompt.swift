import Consent

/// Raises RequestReceived for an online presentation when its request reaches consent,
/// then asks the real front-end.
struct SignalingConsentPrompt: ConsentPrompt {
    let session: UInt64
    let inner: any ConsentPrompt
    let signals: HolderSignals
    let log: ServiceLog

    func decide(_ request: ConsentRequest) async -> ConsentDecision {
        let docTypes = request.documents.map(\.docType)
        log.info(
            "session \(session): request from \(request.requester.displayName) (\(request.requester.authentication.summary)) for \(docTypes.joined(separator: ", "))"
        )
        signals.requestReceived(session, requester: request.requester.displayName, docTypes: docTypes)
        return await inner.decide(request)
    }
}
