import CBOR
import FoundationEssentials
import ISO18013
import MdocCrypto
import SQLite
import SecureArea

extension CredentialStore {
    /// Imports every document of a file an issuer handed out, with the device private key
    /// the credentials were issued to; the key goes into the default secure area
    /// (``SecureAreaRegistry/defaultArea``; the software area wraps it, a TPM cannot take it in)
    /// unless the store already holds it. Returns the new credential IDs, one per document, in
    /// file order.
    ///
    /// Each document is checked, in this order, before anything is stored:
    /// 1. well-formed: an IssuerSigned whose issuerAuth carries a MobileSecurityObject;
    /// 2. the Document's docType (when the file has one) is the MSO's;
    /// 3. the MSO is valid at `time` (validFrom ... validUntil);
    /// 4. with `verifyIssuer`, issuer data authentication (ISO 18013-5 9.3.1): the MSO
    ///    signature with the document signer certificate, its chain to one of `trustAnchors`
    ///    (IACA certificates) and its EKU, and every element's digest;
    /// 5. the device key's public key is the MSO's deviceKey.
    ///
    /// `verifyIssuer: false` skips step 4 entirely (signature, chain and digests): it is for
    /// credentials the user trusts by other means (a test issuer). Steps 1-3 and 5 always run.
    ///
    /// The import is one transaction: every document is stored, or (on any error) none.
    ///
    /// - Parameter fileBytes: binary CBOR or hex text of: an IssuerSigned, a Document, or a
    ///   DeviceResponse-shaped `{"version", "documents", "status"}` container (documents
    ///   without deviceSigned are fine).
    /// - Parameter deviceKeyPEM: unencrypted PEM private key; required (nil throws
    ///   ``WalletError/deviceKeyMissing``). It is never stored in plaintext.
    @discardableResult
    public func `import`(
        fileBytes: [UInt8], deviceKeyPEM: String?, trustAnchors: [Certificate], verifyIssuer: Bool = true,
        at time: Date = Date(), scopedAnchors: [IssuerTrust.ScopedAnchor] = []
    ) throws(WalletError) -> [String] {
        let file = try CredentialFile(bytes: fileBytes)
        let deviceKey = try Self.readDeviceKey(deviceKeyPEM)
        let checked = try Self.checkAll(
            file, publicKey: deviceKey.publicKey,
            trustAnchors: IssuerTrust(anchors: trustAnchors, scopedAnchors: scopedAnchors), verifyIssuer: verifyIssuer,
            at: time
        ) { n, docType in .deviceKeyMismatch(document: n, docType: docType) }
        let (key, isNew) = try keyForImport(deviceKey)
        return try store(checked, key: key, isNew: isNew)
    }

    /// The stored key `id` and its public key (what an import by `--key` compares with).
    func storedKeyWithPublicKey(id: String) throws(WalletError) -> (key: StoredKey, publicKey: PublicKey) {
        let key = try storedKey(id: id)
        do {
            return (key, try key.publicKey())
        } catch {
            throw .secureArea(error)
        }
    }

    /// The device private key of an import, from its PEM.
    static func readDeviceKey(_ pem: String?) throws(WalletError) -> PrivateKey {
        guard let pem else { throw .deviceKeyMissing }
        do {
            return try PrivateKey(pem: pem)
        } catch {
            throw .deviceKeyUnreadable(reason: error.description)
        }
    }

    /// The stored key with `deviceKey`'s public key, or a new one in the default secure area
    /// (`isNew`: its row is still to be written, with the credential).
    func keyForImport(_ deviceKey: PrivateKey) throws(WalletError) -> (key: StoredKey, isNew: Bool) {
        if let existing = try keys().first(where: {
            $0.key.publicKeyDER == deviceKey.publicKey.subjectPublicKeyInfoDER
        }) {
            return (existing.key, false)
        }
        do {
            return (try secureAreas.defaultSecureArea().importKey(deviceKey, passphrase: secureAreas.passphrase), true)
        } catch {
            throw .secureArea(error)
        }
    }

    /// Imports every document of a file issued to the public key of the stored key `keyID`
    /// (made with ``createKey(_:in:)``, for instance in a TPM). The same checks as
    /// ``import(fileBytes:deviceKeyPEM:trustAnchors:verifyIssuer:at:)``; step 5 compares the
    /// MSO's deviceKey with that key's public key.
    @discardableResult
    public func `import`(
        fileBytes: [UInt8], keyID: String, trustAnchors: [Certificate], verifyIssuer: Bool = true,
        at time: Date = Date(), scopedAnchors: [IssuerTrust.ScopedAnchor] = []
    ) throws(WalletError) -> [String] {
        let file = try CredentialFile(bytes: fileBytes)
        let (key, publicKey) = try storedKeyWithPublicKey(id: keyID)
        let checked = try Self.checkAll(
            file, publicKey: publicKey,
            trustAnchors: IssuerTrust(anchors: trustAnchors, scopedAnchors: scopedAnchors), verifyIssuer: verifyIssuer,
            at: time
        ) { n, docType in .keyDoesNotMatch(keyID: keyID, document: n, docType: docType) }
        return try store(checked, key: key, isNew: false)
    }

    private static func checkAll(
        _ file: CredentialFile, publicKey: PublicKey, trustAnchors: IssuerTrust, verifyIssuer: Bool, at time: Date,
        mismatch: (Int, String) -> WalletError
    ) throws(WalletError) -> [Checked] {
        var checked: [Checked] = []
        for entry in file.entries {
            let document = try Self.check(
                entry, publicKey: publicKey, trustAnchors: trustAnchors, verifyIssuer: verifyIssuer, at: time,
                mismatch: mismatch)
            if let first = checked.first(where: { $0.issuerSignedBytes == document.issuerSignedBytes }) {
                throw .duplicateDocument(document: entry.index, sameAs: first.index)
            }
            checked.append(document)
        }
        return checked
    }

    /// Stores the checked documents bound to `key` (and the key row, when `isNew`), in one
    /// transaction.
    private func store(_ checked: [Checked], key: StoredKey, isNew: Bool) throws(WalletError) -> [String] {
        let importedAt = Date()
        return try withDatabase { (db) throws(WalletError) in
            try transaction(db) {
                if isNew { try KeyRows.insert(key, into: db) }
                try Self.refuseStored(checked, in: db)
                var ids: [String] = []
                for document in checked {
                    let id = try Self.newID(db, avoiding: ids)
                    try Self.insertCredential(document, id: id, keyID: key.id, importedAt: importedAt, in: db)
                    ids.append(id)
                }
                return ids
            }
        }
    }
}
