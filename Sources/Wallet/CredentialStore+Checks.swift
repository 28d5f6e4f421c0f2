import FoundationEssentials
import ISO18013
import MdocCrypto

/// The checks an mdoc passes before the store keeps it, from a file (`credentials import`) or
/// from an issuer (OpenID4VCI): parsed once, then checked in order.
extension CredentialStore {
    /// A document that passed every check, ready to store.
    struct Checked {
        var index: Int
        var docType: String
        var issuerSignedBytes: [UInt8]
        var issuerSubject: String?
        var validFrom: Date
        var validUntil: Date
        var elements: [String]
    }

    /// A document read from its IssuerSigned bytes (step 1, well-formed): parsed once, then
    /// checked and stored.
    struct ParsedDocument {
        var entry: CredentialFile.Entry
        var issuerSigned: IssuerSigned
        var mso: MobileSecurityObject
        /// The MSO's deviceKey.
        var deviceKey: PublicKey
    }

    /// Step 1: an IssuerSigned whose issuerAuth carries a MobileSecurityObject with a digest
    /// algorithm we know and a usable device key.
    static func parse(_ entry: CredentialFile.Entry) throws(WalletError) -> ParsedDocument {
        let n = entry.index
        let issuerSigned: IssuerSigned
        let mso: MobileSecurityObject
        do {
            issuerSigned = try IssuerSigned(bytes: entry.issuerSignedBytes)
            mso = try issuerSigned.mobileSecurityObject().mso
        } catch {
            throw .malformedDocument(document: n, reason: "\(error)")
        }
        guard mso.digest != nil else {
            throw .malformedDocument(document: n, reason: "unsupported MSO digest algorithm \(mso.digestAlgorithm)")
        }
        do {
            return ParsedDocument(
                entry: entry, issuerSigned: issuerSigned, mso: mso, deviceKey: try mso.deviceKey.publicKey())
        } catch {
            throw .malformedDocument(document: n, reason: "the MSO device key is unusable: \(error)")
        }
    }

    static func check(
        _ entry: CredentialFile.Entry, publicKey: PublicKey, trustAnchors: IssuerTrust, verifyIssuer: Bool,
        at time: Date, mismatch: (Int, String) -> WalletError
    ) throws(WalletError) -> Checked {
        try check(
            try parse(entry), publicKey: publicKey, trustAnchors: trustAnchors, verifyIssuer: verifyIssuer, at: time,
            mismatch: mismatch)
    }

    /// Steps 2 to 5 of a parsed document.
    static func check(
        _ document: ParsedDocument, publicKey: PublicKey, trustAnchors: IssuerTrust, verifyIssuer: Bool,
        at time: Date, mismatch: (Int, String) -> WalletError
    ) throws(WalletError) -> Checked {
        let (entry, mso, n) = (document.entry, document.mso, document.entry.index)
        // 2. docType.
        if let declared = entry.docType, declared != mso.docType {
            throw .docTypeMismatch(document: n, documentDocType: declared, msoDocType: mso.docType)
        }
        // 3. Validity.
        let validity = mso.validityInfo
        if time < validity.validFrom {
            throw .notYetValid(document: n, docType: mso.docType, validFrom: validity.validFrom)
        }
        if time > validity.validUntil {
            throw .expired(document: n, docType: mso.docType, validUntil: validity.validUntil)
        }
        // 4. Issuer data authentication.
        if verifyIssuer {
            let result = IssuerDataAuthentication.verify(
                document.issuerSigned, docType: mso.docType, trust: trustAnchors, at: time)
            guard result.isValid else {
                throw .issuerAuthenticationFailed(document: n, docType: mso.docType, failures: result.failures)
            }
        }
        // 5. The device key.
        guard publicKey == document.deviceKey else { throw mismatch(n, mso.docType) }
        return Checked(
            index: n, docType: mso.docType, issuerSignedBytes: entry.issuerSignedBytes,
            issuerSubject: documentSignerSubject(document.issuerSigned), validFrom: validity.validFrom,
            validUntil: validity.validUntil, elements: StoredCredential.elements(of: document.issuerSigned))
    }

    /// The subject of the document signer certificate (x5chain's first), when it parses.
    private static func documentSignerSubject(_ issuerSigned: IssuerSigned) -> String? {
        guard let der = issuerSigned.issuerAuth.x5chain?.first else { return nil }
        return try? Certificate(der: der).subject
    }
}
