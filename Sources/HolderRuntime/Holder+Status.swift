import FoundationEssentials
import MdocCrypto
import PrintableText
import TokenStatusList
import Wallet

/// What one credential's status check came to.
public struct StatusRefresh: Sendable {
    /// The credential and its status list reference.
    public let target: StatusCheckTarget
    /// What the list said (``StatusCheck/known(_:checkedAt:)``), or why it could not be read.
    public let check: StatusCheck
    /// The status the store now holds for it: the new answer, or the last one kept when the
    /// list could not be read.
    public let lastStatus: LastKnownStatus?
    /// The answer could not be written to the store.
    public let storeProblem: String?

    /// One printable line: doc type, id, status, checked at.
    public var line: String {
        let docType = RemoteText.printable(target.docType)
        switch check {
        case .known(let status, let checkedAt):
            return "\(docType)  \(target.id)  \(status)  checked at \(Self.time(checkedAt))"
                + (storeProblem.map { "  (not stored: \($0))" } ?? "")
        case .unknown(let reason):
            let last = lastStatus.map { "last known \($0.status) at \(Self.time($0.checkedAt))" } ?? "never checked"
            return "\(docType)  \(target.id)  unknown (\(RemoteText.printable(reason, limit: 300)); \(last))"
        }
    }

    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(secondsFromGMT: 0)!))
    }
}

extension Holder {
    /// Checks the status of the holder's own credentials (`id` only, or every one with a status
    /// list reference) in their issuers' Token Status Lists with `checker`, trusting the list
    /// signers that chain to `trustAnchors` (the settings' issuer trust when nil: the anchors
    /// that authenticate the issuers), and records each answer with its time. A list that
    /// cannot be read keeps the last known status. Each result is logged.
    /// - Throws: ``HolderRuntimeError/store(_:)`` when the store cannot be read or `id` names
    ///   no credential.
    public func refreshStatus(
        id: String? = nil, checker: any CredentialStatusChecking, trustAnchors: [Certificate]? = nil,
        at time: Date = Date(), log sessionLog: HolderLog? = nil
    ) async throws(HolderRuntimeError) -> [StatusRefresh] {
        let log = sessionLog ?? self.log
        let targets: [StatusCheckTarget]
        do {
            targets = try store.statusCheckTargets(id: id)
        } catch {
            throw .store("the credential store \(store.path) could not be read: \(error)")
        }
        let anchors = trustAnchors ?? settings.issuerTrust
        var refreshed: [StatusRefresh] = []
        for target in targets {
            let check = await checker.check(
                target.reference, format: target.listFormat, trustAnchors: anchors, at: time)
            var last = target.lastStatus
            var problem: String?
            if case .known(let status, let checkedAt) = check {
                last = LastKnownStatus(status, checkedAt: checkedAt)
                do {
                    try store.setLastStatus(id: target.id, LastKnownStatus(status, checkedAt: checkedAt))
                } catch {
                    problem = "\(error)"
                }
            }
            let refresh = StatusRefresh(target: target, check: check, lastStatus: last, storeProblem: problem)
            log(HolderLogLine(refresh.isAnswered && problem == nil ? .info : .warning, "status: " + refresh.line))
            refreshed.append(refresh)
        }
        return refreshed
    }
}

extension StatusRefresh {
    /// Whether the list answered.
    public var isAnswered: Bool {
        if case .known = check { return true }
        return false
    }
}
