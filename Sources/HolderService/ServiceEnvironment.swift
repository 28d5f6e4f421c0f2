import Consent
import DBus
import HolderRuntime
import OnlineFlows
import OnlineTransport
import Wallet

/// What every session of the service shares: the bus connection, the store, the consent
/// front-end, the signals and the log.
struct ServiceEnvironment: Sendable {
    let connection: DBusConnection
    let store: CredentialStore
    let configuration: ServiceConfiguration
    /// The holder every session runs on, built once from the configuration's settings.
    let holder: Holder
    let agents: AgentRegistry
    let signals: HolderSignals
    let log: ServiceLog
    /// RefreshStatus and the status timer (nil in an environment made for tests of other
    /// methods: RefreshStatus is then not supported).
    var statusRefresher: StatusRefresher? = nil

    /// The consent front-end for one session.
    func consentPrompt(session: UInt64) -> any ConsentPrompt {
        switch configuration.consent {
        case .agent(let timeout):
            return agentPrompt(session: session, timeout: timeout)
        case .policy(let policy, _):
            return policy
        }
    }

    /// The registered agent, asked for one session's consent and transaction code.
    private func agentPrompt(session: UInt64, timeout: Duration) -> AgentConsentPrompt {
        AgentConsentPrompt(registry: agents, connection: connection, session: session, timeout: timeout, log: log)
    }

    /// The log of session `id`: the holder's lines after "session ID:".
    func sessionLog(_ id: UInt64) -> HolderLog {
        let log = log
        return { line in log.holderLine(line, session: id) }
    }

    /// Where one session's transaction code comes from: the registered agent; a policy
    /// file has nobody to ask.
    func transactionCodeSource(session: UInt64) -> CredentialIssuance.TransactionCodeSource {
        switch configuration.consent {
        case .agent(let timeout):
            let prompt = agentPrompt(session: session, timeout: timeout)
            return { request throws(CredentialIssuanceError) in try await prompt.transactionCode(for: request) }
        case .policy(_, let path):
            return { _ throws(CredentialIssuanceError) in
                throw .transactionCodeUnavailable(
                    "the service answers from the policy file \(path) and has nobody to ask for it: receive this offer with `mdoc-holder credentials receive`"
                )
            }
        }
    }

    /// Who opens one session's authorization URL (the authorization code flow): the registered
    /// agent. Answers nil when it was opened, else why not. A policy file has nobody to open
    /// it (the flow is off then: the offer is refused before consent).
    func authorizationOpener(session: UInt64) -> @Sendable (String) async -> String? {
        switch configuration.consent {
        case .agent(let timeout):
            let prompt = agentPrompt(session: session, timeout: timeout)
            return { url in await prompt.openAuthorization(url: url) }
        case .policy(_, let path):
            return { _ in "the service answers from the policy file \(path) and has nobody to open it" }
        }
    }
}
