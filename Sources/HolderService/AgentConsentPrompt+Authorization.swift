import DBus

/// The authorization URL of an offer without a pre-authorized code, for the registered D-Bus
/// agent to open (`org.mdocholder.ConsentAgent1.OpenAuthorization`): in a browser, or as a QR
/// code for a phone. The browser comes back to the service's loopback redirect listener.
extension AgentConsentPrompt {
    static let openAuthorizationMember = "OpenAuthorization"

    /// Asks the agent to open `url`; nil when it did, else why not (no agent, an error
    /// answer, no answer within `timeout`, the agent left the bus). The URL is not logged (it
    /// may carry the issuer's state).
    func openAuthorization(url: String) async -> String? {
        guard let agent = await registry.current else {
            return "no consent agent is registered to open it (org.mdocholder.AgentManager1.RegisterAgent)"
        }
        log.info("session \(session): asking consent agent \(agent) to open the authorization URL")
        let call = AgentCall(connection: connection, agent: agent, session: session, timeout: timeout)
        switch await call.call(Self.openAuthorizationMember, [.uint64(session), .string(url)]) {
        case .answered:
            return nil
        case .failed(let error) where error.isTimeout:
            call.cancel()
            return "the consent agent did not answer within \(timeout)"
        case .failed(let error):
            return "the consent agent declined to open it (\(CallerText.bounded(error.name)))"
        case .departed:
            return "the consent agent left the bus before answering"
        case .cancelled:
            call.cancel()
            return "the session ended while the consent agent was asked"
        }
    }
}
