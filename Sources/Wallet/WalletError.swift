import BoundedFile
import CBOR
import FoundationEssentials
import SDJWT
import SQLite
import SecureArea

/// Why a credential store operation failed. Each message says what went wrong and what to
/// do. Messages name doc types, element identifiers, credential IDs and paths; never element
/// values or key material.
public enum WalletError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    // MARK: Import: the file

    /// The file is neither CBOR nor hex-encoded CBOR.
    case unreadableFile(reason: String)
    /// The file is CBOR but holds no document to import.
    case nothingToImport(reason: String)
    /// A document of the file is not a well-formed IssuerSigned / MobileSecurityObject.
    /// `document` is 1-based.
    case malformedDocument(document: Int, reason: String)
    /// The same document appears twice in the file.
    case duplicateDocument(document: Int, sameAs: Int)

    // MARK: Import: the checks

    /// Issuer data authentication failed: the MSO signature, the document signer's chain to
    /// a trusted IACA certificate, or an element's digest.
    case issuerAuthenticationFailed(document: Int, docType: String, failures: [String])
    /// The MSO's validUntil is before the import time.
    case expired(document: Int, docType: String, validUntil: Date)
    /// The MSO's validFrom is after the import time.
    case notYetValid(document: Int, docType: String, validFrom: Date)
    /// The Document's docType is not the one its MSO signs.
    case docTypeMismatch(document: Int, documentDocType: String, msoDocType: String)
    /// No device key was given: presenting a credential needs its device private key.
    case deviceKeyMissing
    /// The device key PEM cannot be read (the reason never quotes the key).
    case deviceKeyUnreadable(reason: String)
    /// The device key is not the one the MSO binds the credential to.
    case deviceKeyMismatch(document: Int, docType: String)
    /// This exact document is already in the store.
    case alreadyStored(document: Int, id: String)

    /// An SD-JWT VC was refused by one of its checks (form, Disclosures, validity, issuer).
    case sdJWTRefused(SDJWTError)
    /// The SD-JWT VC's `cnf.jwk` is not the given key (`keyID` nil: the --device-key PEM).
    case sdJWTKeyMismatch(keyID: String?)
    /// A received SD-JWT VC (copy `document`) has another `vct` than the one offered.
    case vctMismatch(document: Int, offered: String, found: String)

    // MARK: Store

    /// No credential has this ID.
    case unknownCredential(id: String)
    /// A stored credential cannot be read back (the file was altered outside this program).
    case corruptCredential(id: String, reason: String)
    /// A history entry cannot be read back.
    case corruptHistory(entry: Int64, reason: String)
    /// The database was written by a newer version of this program.
    case schemaTooNew(path: String, found: Int, supported: Int)
    /// The file is an SQLite database of some other application.
    case notAWallet(path: String, reason: String)
    /// The store's directory or file cannot be created or opened.
    case storeLocation(path: String, reason: String)
    /// An SQLite call failed.
    case database(path: String, SQLiteError)

    // MARK: Device keys (secure areas)

    /// A secure area failed: the text says which key, which area and what to do.
    case secureArea(SecureAreaError)
    /// No key has this ID.
    case unknownKey(id: String)
    /// The key is used by credentials (delete them with it, or first).
    case keyInUse(id: String, credentials: [String])
    /// The key given for an import is not the one the MSO binds the credential to.
    case keyDoesNotMatch(keyID: String, document: Int, docType: String)

    public var description: String {
        switch self {
        case .unreadableFile(let reason):
            return "the file is not an mdoc: \(reason). Import the CBOR file the issuer produced "
                + "(an IssuerSigned, a Document or a DeviceResponse-shaped container; binary or hex)."
        case .nothingToImport(let reason):
            return "nothing to import: \(reason). Import the CBOR file the issuer produced "
                + "(an IssuerSigned, a Document or a DeviceResponse-shaped container)."
        case .malformedDocument(let document, let reason):
            return "document \(document) of the file is malformed: \(reason). Ask the issuer for a new copy."
        case .duplicateDocument(let document, let first):
            return
                "document \(document) of the file is the same as document \(first); remove the copy and import again."
        case .issuerAuthenticationFailed(let document, let docType, let failures):
            return "document \(document) (\(docType)) failed issuer data authentication: "
                + failures.joined(separator: "; ") + ". " + Self.hint(for: failures)
        case .expired(let document, let docType, let validUntil):
            return "document \(document) (\(docType)) expired on \(RFC3339.string(from: validUntil)) "
                + "(MSO validUntil). Ask the issuer for a renewed credential."
        case .notYetValid(let document, let docType, let validFrom):
            return "document \(document) (\(docType)) is not valid until \(RFC3339.string(from: validFrom)) "
                + "(MSO validFrom). Check the system clock, or import it once it is valid."
        case .docTypeMismatch(let document, let documentDocType, let msoDocType):
            return "document \(document) says its docType is \(documentDocType) but its MSO is signed for "
                + "\(msoDocType). The file is inconsistent; ask the issuer for a new copy."
        case .deviceKeyMissing:
            return "a device key is required: give the PEM file of the device private key the credential "
                + "was issued to (--device-key KEY.pem)."
        case .deviceKeyUnreadable(let reason):
            return "the device key cannot be read (\(reason)). Give an unencrypted PEM private key "
                + "(BEGIN PRIVATE KEY or BEGIN EC PRIVATE KEY)."
        case .deviceKeyMismatch(let document, let docType):
            return "document \(document) (\(docType)) was issued to another device key: the given key's "
                + "public key is not the MSO's deviceKey. Give the key the credential was issued to."
        case .alreadyStored(let document, let id):
            return "document \(document) of the file is already stored as credential \(id); "
                + "delete that credential first to import it again."
        case .sdJWTRefused(let error):
            return Self.describe(error)
        case .sdJWTKeyMismatch(let keyID):
            let key = keyID.map { "key \($0)" } ?? "the given device key"
            return "the SD-JWT VC was issued to another key than \(key): its cnf.jwk is not that key's public key. "
                + "Give the key the credential was issued to."
        case .vctMismatch(let document, let offered, let found):
            return "SD-JWT VC \(document) has vct \(found) but \(offered) was offered; ask the issuer for a new offer."
        case .unknownCredential(let id):
            return "no credential with ID \(id); list the stored ones with `mdoc-holder credentials list`."
        case .corruptCredential(let id, let reason):
            return "credential \(id) cannot be read back from the store (\(reason)); delete it and import it again."
        case .corruptHistory(let entry, let reason):
            return "history entry \(entry) cannot be read back from the store (\(reason))."
        case .schemaTooNew(let path, let found, let supported):
            return "the credential store \(path) has schema version \(found), newer than the \(supported) this "
                + "program knows: it was written by a newer mdoc-holder. Upgrade mdoc-holder, or use another store."
        case .notAWallet(let path, let reason):
            return "\(path) is not an mdoc-holder credential store (\(reason)); give another path with --store."
        case .storeLocation(let path, let reason):
            return "cannot use the credential store \(path): \(reason). Check the directory and its permissions, "
                + "or give another path with --store."
        case .database(let path, let error):
            if error.isBusy {
                return
                    "the credential store \(path) is busy (another mdoc-holder is writing to it): \(error). Try again."
            }
            let directory = BoundedFile.directory(of: path)
            let directoryWritable = FileManager.default.isWritableFile(atPath: directory.isEmpty ? "." : directory)
            if error.isReadOnly || (error.isCannotOpen && !directoryWritable) {
                return "the credential store \(path) cannot be written: the file or its directory "
                    + "\(directory.isEmpty ? "." : directory) is read-only (a store needs to write beside itself). "
                    + "Make both writable by this user, or give another path with --store."
            }
            if error.isDiskFull {
                return "the disk holding the credential store \(path) is full; free some space and try again "
                    + "(nothing was changed)."
            }
            if error.isCannotOpen {
                return "the credential store \(path) cannot be opened or created; check that its directory exists "
                    + "and is writable by this user, or give another path with --store."
            }
            if error.isCorrupt {
                return "the credential store \(path) is damaged (\(error.message)); restore it from a backup, or "
                    + "move it away and import the credentials again."
            }
            return "credential store \(path): \(error)."
        case .secureArea(let error):
            return "\(error)."
        case .unknownKey(let id):
            return "no key with ID \(id); list the stored ones with `mdoc-holder keys list`."
        case .keyInUse(let id, let credentials):
            return "key \(id) is used by credential(s) \(credentials.joined(separator: ", ")): delete them first, "
                + "or delete the key with them (--with-credentials)."
        case .keyDoesNotMatch(let keyID, let document, let docType):
            return "document \(document) (\(docType)) was issued to another device key than key \(keyID): its MSO's "
                + "deviceKey is not that key's public key. Give the key the credential was issued to (--key ID)."
        }
    }

    public var errorDescription: String? { description }

    /// The part of the advice for a credential that failed issuer authentication that only
    /// `credentials import` can follow; receiving (command line or service) has no such option.
    static let importOnlyAdvice = " (or, importing a test credential you trust, --no-verify-issuer)"

    /// `text` (a message that may quote a ``WalletError``) without ``importOnlyAdvice``: for
    /// the flows that receive from an issuer.
    public static func withoutImportAdvice(_ text: String) -> String {
        text.replacing(importOnlyAdvice, with: "")
    }

    private static func describe(_ error: SDJWTError) -> String {
        switch error {
        case .expired(let date):
            return
                "the SD-JWT VC expired on \(RFC3339.string(from: date)) (exp). Ask the issuer for a renewed credential."
        case .notYetValid(let date):
            return "the SD-JWT VC is not valid until \(RFC3339.string(from: date)) (nbf). Check the system clock, "
                + "or import it once it is valid."
        case .issuerNotTrusted(let why):
            return "the SD-JWT VC failed issuer authentication: \(why). Give the certificate of the issuer's CA with "
                + "--trust-anchor CA.pem; for one without x5c whose issuer publishes its keys, import with "
                + "--issuer-metadata\(importOnlyAdvice)."
        case .disclosureMismatch, .invalidDisclosure:
            return "\(error). The credential was altered after it was issued; ask the issuer for a new copy."
        default:
            return "\(error). Import the SD-JWT VC exactly as the issuer produced it "
                + "(<issuer-signed JWT>~<Disclosure>~...~)."
        }
    }

    private static func hint(for failures: [String]) -> String {
        if failures.contains(where: { $0.contains("not trusted") }) {
            return "Give the issuer's IACA certificate with --trust-anchor IACA.pem\(importOnlyAdvice)."
        }
        if failures.contains(where: { $0.contains("digest") || $0.contains("signature") }) {
            return "The credential was altered after it was issued; ask the issuer for a new copy."
        }
        return "Ask the issuer for a new copy."
    }
}
