import Consent
import DBus
import OnlineTransport
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

    /// Where one session's transaction code comes from: the registered agent; a policy
    /// file has nobody to ask.
    func transactionCodeSource(session: UInt64) -> CredentialIssuance.TransactionCodeSource {
        switch configuration.consent {
        case .agent(let timeout):
            let prompt = AgentTransactionCodePrompt(
                registry: agents, connection: connection, session: session, timeout: timeout, log: log)
            return { request throws(CredentialIssuanceError) in try await prompt.code(for: request) }
        case .policy(_, let path):
            return { _ throws(CredentialIssuanceError) in
                throw .transactionCodeUnavailable(
                    "the service answers from the policy file \(path) and has nobody to ask for it: receive this offer with `mdoc-holder credentials receive`"
                )
            }
        }
    }
}
