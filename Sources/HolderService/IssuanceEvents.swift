import OnlineFlows

/// An issuance's progress as the service reports it: the log (hosts, doc types, ids; never a
/// code, token, URL or value), CredentialReceived for each stored credential, and the
/// authorization URL handed to the agent to open.
struct IssuanceEvents: Sendable {
    let session: UInt64
    let log: ServiceLog
    let signals: HolderSignals
    /// Opens the authorization URL (the agent): nil when opened, else why not.
    let open: @Sendable (String) async -> String?
    /// Ends the session when the URL was not opened, saying why.
    let refuse: @Sendable (String) async -> Void

    @Sendable func report(_ event: CredentialIssuance.Event) {
        let id = session
        switch event {
        case .fetchingOffer(let host):
            log.info("session \(id): fetching the offer from \(host)")
        case .issuer(let name, let host):
            log.info("session \(id): issuer \(name) (\(host))")
        case .openAuthorization(let url):
            log.info("session \(id): the issuer asks for a browser authorization: the consent agent opens it")
            let (open, refuse) = (open, refuse)
            Task {
                if let why = await open(url) { await refuse(why) }
            }
        case .requestingToken(let host, let dpop):
            log.info("session \(id): requesting an access token from \(host)\(dpop ? " (DPoP)" : "")")
        case .requestingCredential(let docType, let copies):
            log.info("session \(id): requesting \(docType) (\(copies) \(copies == 1 ? "copy" : "copies"))")
        case .stored(let credentialID, let docType, let copies):
            log.info(
                "session \(id): stored \(docType) as credential \(credentialID) (\(copies) \(copies == 1 ? "copy" : "copies"))"
            )
            signals.credentialReceived(id, credentialID: credentialID, docType: docType, copies: copies)
        case .deferred(let docType, let interval):
            log.info("session \(id): the issuer deferred \(docType); asking again every \(interval) s")
        case .keptPending(let pendingID, let docType):
            log.info("session \(id): \(docType) is not ready: kept pending as \(pendingID)")
        case .notified(let event):
            log.info("session \(id): the issuer was notified: \(event)")
        }
    }
}
