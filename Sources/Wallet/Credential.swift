import CBOR
import Consent
import FoundationEssentials
import ISO18013
import MdocCrypto
import SecureArea

/// What `list` shows of a stored credential: metadata and element identifiers, never values.
/// Made by the store only (its memberwise initializer is internal).
public struct CredentialSummary: Sendable, Hashable, Codable {
    /// 16 hex digits, random.
    public var id: String
    /// `mso_mdoc` or `dc+sd-jwt` (the OpenID4VP format identifiers).
    public var format: String = "mso_mdoc"
    /// The mdoc's docType, or the SD-JWT VC's `vct`.
    public var docType: String
    /// Subject of the document signer certificate (nil when it could not be read at import).
    public var issuerSubject: String?
    /// MSO validFrom / validUntil; an SD-JWT VC's `nbf` (or `iat`) / `exp` (distantFuture
    /// without one).
    public var validFrom: Date
    public var validUntil: Date
    public var importedAt: Date
    /// Every element the credential holds, as "namespace:element"; for an SD-JWT VC every
    /// claim path (`address.locality`, `nationalities[0]`).
    public var elements: [String]
    /// Set when the stored row cannot be read back in full: what is wrong and what to do.
    /// Such a credential is never presented.
    public var problem: String?
    /// The Credential Issuer Identifier, for a credential received over OpenID4VCI.
    public var receivedFrom: String?
    /// How many copies (one key each) were received; nil for a single imported credential.
    public var copies: Int?
    /// How many of them were never presented yet.
    public var unusedCopies: Int?
    /// What the issuer's status list said at the last check (`credentials status`); nil
    /// before the first answer, and for a credential without a status list reference.
    public var lastStatus: LastKnownStatus? = nil

    /// Whether the MSO is valid at `time`.
    public func isValid(at time: Date = Date()) -> Bool { validFrom <= time && time <= validUntil }
}

/// What `show` shows: the summary, what the MSO says, and element values only when asked.
/// Made by the store only (its memberwise initializer is internal).
public struct CredentialDetail: Sendable, Hashable, Codable {
    /// One element of the credential.
    public struct Element: Sendable, Hashable, Codable {
        /// "namespace:element", or an SD-JWT VC's claim path.
        public let id: String
        /// The value in CBOR diagnostic notation (byte strings elided, with their length), or
        /// JSON for an SD-JWT VC claim; nil unless values were asked for.
        public let value: String?
    }

    public let id: String
    /// `mso_mdoc` or `dc+sd-jwt`.
    public let format: String
    public let docType: String
    public let issuerSubject: String?
    public let validFrom: Date
    public let validUntil: Date
    /// MSO validityInfo.signed and expectedUpdate (an SD-JWT VC's `iat`).
    public let signed: Date
    public let expectedUpdate: Date?
    public let importedAt: Date
    /// MSO digestAlgorithm ("SHA-256", ...), an SD-JWT's `_sd_alg` ("sha-256", ...).
    public let digestAlgorithm: String
    /// Curve of the device key the MSO binds the credential to ("P-256", ...).
    public let deviceKeyCurve: String
    public let elements: [Element]
    /// What the issuer's status list said at the last check; nil before the first answer.
    public internal(set) var lastStatus: LastKnownStatus? = nil
}

/// A credential as the presentation engines use it: the issuer-signed data exactly as
/// issued, and a handle on its device key in its secure area.
///
/// `description` names the credential only; the key never appears in it.
public struct StoredCredential: Sendable, CustomStringConvertible {
    public let id: String
    public let docType: String
    /// Parsed from ``issuerSignedBytes``; its IssuerSignedItemBytes and MSO bytes are the
    /// issued ones.
    public let issuerSigned: IssuerSigned
    /// The IssuerSigned CBOR as stored at import.
    public let issuerSignedBytes: [UInt8]
    public let deviceKey: any DeviceKey
    public let validFrom: Date
    public let validUntil: Date

    public init(
        id: String, docType: String, issuerSigned: IssuerSigned, issuerSignedBytes: [UInt8], deviceKey: any DeviceKey,
        validFrom: Date, validUntil: Date
    ) {
        self.id = id
        self.docType = docType
        self.issuerSigned = issuerSigned
        self.issuerSignedBytes = issuerSignedBytes
        self.deviceKey = deviceKey
        self.validFrom = validFrom
        self.validUntil = validUntil
    }

    /// Every element the credential holds, as "namespace:element".
    public var elements: [String] { Self.elements(of: issuerSigned) }

    /// Every element the credential holds, as the consent types name them.
    public var elementIDs: Set<ElementID> {
        Set(issuerSigned.nameSpaces.flatMap { ns in ns.items.map { ElementID(ns.name, $0.elementIdentifier) } })
    }

    public var description: String { "StoredCredential(\(id), \(docType))" }

    static func elements(of issuerSigned: IssuerSigned) -> [String] {
        issuerSigned.nameSpaces.flatMap { ns in ns.items.map { "\(ns.name):\($0.elementIdentifier)" } }
    }
}
