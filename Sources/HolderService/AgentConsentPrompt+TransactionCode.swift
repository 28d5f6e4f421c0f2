import DBus
import OnlineFlows
import OnlineTransport

/// The transaction code of an offer from the registered D-Bus agent
/// (`org.mdocholder.ConsentAgent1.RequestTransactionCode`): the agent that gives consent is
/// asked, with the same session id and timeout.
extension AgentConsentPrompt {
    /// No code when no agent is registered, when the agent answers with an error (it declined),
    /// with something other than one non-empty string, when it leaves the bus before answering,
    /// and when it does not answer within `timeout` (the agent then gets `Cancel(session)`, as it
    /// does when the session ends while it is asked). The code is never logged.
    func transactionCode(for request: TransactionCodeRequest) async throws(CredentialIssuanceError) -> String {
        guard let agent = await registry.current else {
            log.notice("session \(session): no consent agent registered to give the transaction code")
            throw .transactionCodeUnavailable(
                "no consent agent is registered to ask for it (org.mdocholder.AgentManager1.RegisterAgent)")
        }
        log.info("session \(session): asking consent agent \(agent) for the transaction code")
        let call = AgentCall(connection: connection, agent: agent, session: session, timeout: timeout)
        let why: String
        switch await call.call(
            AgentTransactionCodeWire.member, [.uint64(session), AgentTransactionCodeWire.encode(request)])
        {
        case .answered(let body):
            do {
                let code = try AgentTransactionCodeWire.decode(body)
                log.info("session \(session): the agent gave a transaction code")
                return code
            } catch {
                why = "the consent agent's answer cannot be used: \(error)"
            }
        case .failed(let error) where error.isTimeout:
            call.cancel()
            why = "the consent agent did not answer within \(timeout)"
        case .failed(let error):
            why = "the consent agent declined to give it (\(CallerText.bounded(error.name)))"
        case .departed:
            why = "the consent agent left the bus before answering"
        case .cancelled:
            call.cancel()
            why = "the session ended while the consent agent was asked"
        }
        log.notice("session \(session): no transaction code: \(why)")
        throw .transactionCodeUnavailable(why)
    }
}
