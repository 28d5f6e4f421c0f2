import Consent
import Foundation
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

    /// The credentials valid now; a damaged row is left out, logged the first time it is seen.
    /// - Throws: ``HolderRuntimeError/noCredential`` when none is left,
    ///   ``HolderRuntimeError/store(_:)`` when the store cannot be read.
    func presentableCredentials(log: HolderLog) throws(HolderRuntimeError) -> [PresentableCredential] {
        var unreadable: [UnreadableRow] = []
        let credentials: [PresentableCredential]
        do {
            credentials = try store.presentableCredentials { unreadable.append($0) }
        } catch {
            throw .store("the credential store \(store.path) could not be read: \(error)")
        }
        for row in unreadable where reported.withLock({ $0.insert(row).inserted }) {
            log(HolderLogLine(.warning, "not presented: \(row)"))
        }
        guard !credentials.isEmpty else { throw .noCredential }
        return credentials
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
