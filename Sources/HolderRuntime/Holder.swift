import Consent
import FoundationEssentials
import Presentation
import Synchronization
import Wallet

/// A holder built once from its settings and its store, serving every flow: present over
/// proximity (Holder+Proximity.swift), present online (Holder+Online.swift), receive
/// (Holder+Receive.swift). Each operation selects credentials, records the history and returns
/// one outcome with one description and one ``SessionClassification``. The command line and
/// the D-Bus service are adapters around it: they parse or marshal, and render.
public final class Holder: Sendable {
    public let settings: HolderSettings
    public let store: CredentialStore
    /// Where lines go when an operation is given no log of its own.
    let log: HolderLog
    /// Damaged credential rows already logged: each once per holder, not once per session.
    private let reported = Mutex<Set<UnreadableRow>>([])

    public init(settings: HolderSettings, store: CredentialStore, log: @escaping HolderLog) {
        self.settings = settings
        self.store = store
        self.log = log
    }

    /// The one selection of every presentation: the credentials valid now, without those whose
    /// last known status is INVALID or SUSPENDED (``CredentialSelection/withheld``, each logged
    /// with why); a damaged row is left out, logged the first time it is seen.
    /// - Throws: ``HolderRuntimeError/store(_:)`` when the store cannot be read.
    func selectCredentials(log: HolderLog) throws(HolderRuntimeError) -> CredentialSelection {
        var unreadable: [UnreadableRow] = []
        var withheld: [WithheldCredential] = []
        let credentials: [PresentableCredential]
        do {
            credentials = try store.presentableCredentials(
                unreadable: { unreadable.append($0) }, withheld: { withheld.append($0) })
            _ = try store.presentableSDJWTs(withheld: { withheld.append($0) })
        } catch {
            throw .store("the credential store \(store.path) could not be read: \(error)")
        }
        for row in unreadable where reported.withLock({ $0.insert(row).inserted }) {
            log(HolderLogLine(.warning, "not presented: \(row)"))
        }
        let selection = CredentialSelection(credentials: credentials, withheld: withheld)
        for item in withheld { log(HolderLogLine(.warning, CredentialSelection.reason(item))) }
        return selection
    }

    /// Writes `records` to the history; a failure is logged and returned (the session's result stands).
    func record(_ records: [PresentationRecord], channel: PresentationChannel, log: HolderLog) -> String? {
        do {
            try store.record(records, channel: channel)
            return nil
        } catch {
            let problem = "the history could not be written: \(error)"
            log(HolderLogLine(.warning, problem))
            return problem
        }
    }
}
