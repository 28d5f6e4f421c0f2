import FoundationEssentials
import MdocCrypto
import PrintableText
import SDJWT
import SecureArea

extension CredentialStore {
    /// Checks every SD-JWT VC an issuer sent for one `dc+sd-jwt` credential configuration and
    /// stores them, with their keys, in one transaction: every copy is stored or none.
    ///
    /// Each copy goes through the checks of an SD-JWT VC file import
    /// (``importSDJWT(compact:keyID:trustAnchors:verifyIssuer:at:)``): the form and every
    /// Disclosure, `_sd_alg`, `typ`, `nbf`/`exp` at `time`, the issuer's signature with its
    /// `x5c` chain to one of `trustAnchors`; then its `vct` must be `vct` and its `cnf.jwk` the
    /// public key of one of `keys` (each key binds one copy).
    ///
    /// The copies are one credential (as an mdoc's are): one ID, N copies each with its own
    /// key, each presented once while an unused one is left; with what a `credential_deleted`
    /// notification needs. The history gets one `received` entry (issuer, vct, claim paths,
    /// copies; no values).
    ///
    /// - Returns: the new credential's ID (one, as for an mdoc).
    ///
    /// - Parameter pendingID: a pending deferred issuance this ends: its keys are stored
    ///   already, and its row goes in the same transaction.
    public func receiveSDJWT(
        _ compacts: [String], keys: [StoredKey], vct: String, from source: IssuanceSource,
        trustAnchors: [Certificate], at time: Date = Date(), completingPending pendingID: String? = nil
    ) throws(WalletError) -> [String] {
        guard !compacts.isEmpty else { throw .nothingToImport(reason: "the issuer sent no credential") }
        guard compacts.count == keys.count else {
            throw .malformedDocument(
                document: 1, reason: "the issuer sent \(compacts.count) credentials for \(keys.count) keys")
        }
        var remaining: [(key: StoredKey, publicKey: PublicKey)] = []
        for key in keys {
            do {
                remaining.append((key, try key.publicKey()))
            } catch {
                throw .secureArea(error)
            }
        }
        var checked: [(credential: SDJWTVC, key: StoredKey)] = []
        for (offset, compact) in compacts.enumerated() {
            let credential = try Self.checkSDJWT(
                compact.trimmingWhitespace(), trustAnchors: trustAnchors,
                verifyIssuer: true, at: time)
            guard credential.vct == vct else {
                throw .vctMismatch(document: offset + 1, offered: vct, found: credential.vct)
            }
            if let first = checked.firstIndex(where: { $0.credential.compact == credential.compact }) {
                throw .duplicateDocument(document: offset + 1, sameAs: first + 1)
            }
            guard let index = remaining.firstIndex(where: { $0.publicKey == credential.holderKey }) else {
                throw .sdJWTKeyMismatch(keyID: keys[offset].id)
            }
            checked.append((credential, remaining.remove(at: index).key))
        }
        let ids = try withDatabase { (db) throws(WalletError) in
            try transaction(db) {
                if let pendingID {
                    try Self.completePending(pendingID, keyIDs: keys.map(\.id), in: db)
                } else {
                    for key in keys { try KeyRows.insert(key, into: db) }
                }
                return [try Self.insertSDJWTBatch(checked, from: source, into: db)]
            }
        }
        do {
            try record(
                HistoryEntry(
                    time: time, channel: .issuance, requesterName: source.issuerName,
                    requesterIdentifier: source.issuer, authentication: source.authentication, docType: vct,
                    elementsSent: checked[0].credential.claimPaths.map(\.description), decision: .received,
                    copies: checked.count))
        } catch {
            // The credentials are stored; a history write failure must not undo them.
        }
        return ids
    }
}
