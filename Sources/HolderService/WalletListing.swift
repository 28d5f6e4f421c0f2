import DBus
import FoundationEssentials
import Wallet

/// The store as `ListCredentials` and `History` give it: names, dates and element
/// identifiers, never values.
enum WalletListing {
    static func credentials(_ store: CredentialStore) throws(HolderServiceError) -> DBusValue {
        let summaries = try read(store) { (store) throws(WalletError) in try store.list() }
        return .array(
            .dictionary(key: .string, value: .variant),
            summaries.map { summary in
                var fields: [String: DBusValue] = [
                    "id": .string(summary.id),
                    "format": .string(summary.format),
                    "doctype": .string(summary.docType),
                    "issuer": .string(summary.issuerSubject ?? ""),
                    "valid_from": .string(rfc3339(summary.validFrom)),
                    "elements": .strings(summary.elements),
                ]
                // An SD-JWT VC without exp does not expire.
                if summary.validUntil != .distantFuture { fields["valid_until"] = .string(rfc3339(summary.validUntil)) }
                // A damaged row: what is wrong and what to do (it is never presented).
                if let problem = summary.problem { fields["problem"] = .string(problem) }
                // The last answer of the issuer's status list, and when it was checked.
                if let last = summary.lastStatus {
                    fields["status"] = .string(last.status.description)
                    fields["status_checked_at"] = .string(rfc3339(last.checkedAt))
                }
                return .properties(fields)
            })
    }

    /// The pending deferred issuances (ResumePending resumes them): neither the token nor the
    /// transaction ID.
    static func pending(_ store: CredentialStore) throws(HolderServiceError) -> DBusValue {
        let pending = try read(store) { (store) throws(WalletError) in try store.pendingIssuances() }
        return .array(
            .dictionary(key: .string, value: .variant),
            pending.map { item in
                .properties([
                    "id": .string(item.id), "doctype": .string(item.docType), "issuer": .string(item.issuerName),
                    "issuer_id": .string(item.issuer), "since": .string(rfc3339(item.createdAt)),
                ])
            })
    }

    /// Newest first, at most `limit` entries (0: all).
    static func history(_ store: CredentialStore, limit: Int) throws(HolderServiceError) -> DBusValue {
        var entries: [HistoryEntry] = try read(store) { (store) throws(WalletError) in try store.history() }
            .reversed()
        if limit > 0, entries.count > limit { entries = Array(entries.prefix(limit)) }
        return .array(
            .dictionary(key: .string, value: .variant),
            entries.map { entry in
                var fields: [String: DBusValue] = [
                    "time": .string(rfc3339(entry.time)),
                    "channel": .string(entry.channel.rawValue),
                    "requester": .string(entry.requesterName),
                    "authentication": .string(entry.authentication),
                    "doctype": .string(entry.docType),
                    "outcome": .string(entry.decision.name),
                    "elements": .strings(entry.elementsSent),
                ]
                // An issuance: how many copies were stored.
                if let copies = entry.copies { fields["copies"] = .uint32(UInt32(clamping: copies)) }
                // A second-edition request: the use case answered.
                if let useCase = entry.useCase { fields["use_case"] = .string(useCase) }
                return .properties(fields)
            })
    }

    /// What `body` reads from the store; its failure as a Store error.
    private static func read<T>(_ store: CredentialStore, _ body: (CredentialStore) throws(WalletError) -> T)
        throws(HolderServiceError) -> T
    {
        do {
            return try body(store)
        } catch {
            throw .store("the credential store \(store.path) could not be read: \(error)")
        }
    }

    static func rfc3339(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(secondsFromGMT: 0)!))
    }
}
