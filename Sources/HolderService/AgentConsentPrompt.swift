import Consent
import DBus

/// Consent from the registered D-Bus agent (`org.mdocholder.ConsentAgent1.RequestConsent`).
///
/// Declines when no agent is registered, when the agent answers with an error or an empty
/// list, when it leaves the bus before answering, and when it does not answer within
/// `timeout` (the agent then gets `Cancel(session)`). A session ended while the agent is
/// asked (the task is cancelled) also sends `Cancel`.
public struct AgentConsentPrompt: ConsentPrompt {
    public let registry: AgentRegistry
    public let connection: DBusConnection
    /// The service's session id, passed to the agent.
    public let session: UInt64
    public let timeout: Duration
    public let log: ServiceLog

    public init(
        registry: AgentRegistry, connection: DBusConnection, session: UInt64, timeout: Duration, log: ServiceLog
    ) {
        self.registry = registry
        self.connection = connection
        self.session = session
        self.timeout = timeout
        self.log = log
    }

    public func decide(_ request: ConsentRequest) async -> ConsentDecision {
        guard let agent = await registry.current else {
            log.notice("session \(session): no consent agent registered: declined")
            return .decline
        }
        log.info("session \(session): asking consent agent \(agent)")
        let call = AgentCall(connection: connection, agent: agent, session: session, timeout: timeout)
        switch await call.call("RequestConsent", [.uint64(session), AgentConsentWire.encode(request)]) {
        case .answered(let body):
            do {
                let decision = try AgentConsentWire.decode(body, for: request)
                if case .approve(let approved) = decision {
                    let count = approved.values.reduce(0) { $0 + $1.count }
                    log.info("session \(session): the agent approved \(count) elements")
                } else {
                    log.info("session \(session): the agent declined")
                }
                return decision
            } catch {
                log.warning("session \(session): \(error): declined")
                return .decline
            }
        case .failed(let error) where error.isTimeout:
            log.notice("session \(session): the agent did not answer within \(timeout): declined")
            call.cancel()
        case .failed(let error):
            log.notice("session \(session): the agent answered \(error.name): declined")
        case .departed:
            log.notice("session \(session): the agent left the bus before answering: declined")
        case .cancelled:
            log.info("session \(session): consent withdrawn (the session ended)")
            call.cancel()
        }
        return .decline
    }
}
