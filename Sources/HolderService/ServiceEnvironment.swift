import Consent
import DBus
import Wallet

/// What every session of the service shares: the bus connection, the store, the consent
/// front-end, the signals and the log.
struct ServiceEnvironment: Sendable {
    let connection: DBusConnection
    let store: CredentialStore
    let configuration: ServiceConfiguration
    let agents: AgentRegistry
    let signals: HolderSignals
    let log: ServiceLog

    /// The consent front-end for one session.
    func consentPrompt(session: UInt64) -> any ConsentPrompt {
        switch configuration.consent {
        case .agent(let timeout):
            return AgentConsentPrompt(
                registry: agents, connection: connection, session: session, timeout: timeout, log: log)
        case .policy(let policy, _):
            return policy
        }
    }
}
