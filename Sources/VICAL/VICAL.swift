import FoundationEssentials

/// A Verified Issuer Certificate Authority List (ISO/IEC 18013-5 Annex C.1.7): the payload of
/// the signed list, as read. Nothing in it is trusted until ``SignedVICAL/verify(anchors:at:)``.
public struct VICAL: Sendable {
    /// Extended key usage of VICAL signer certificates (18013-5 Annex B).
    public static let signerEKU = "1.0.18013.5.1.8"

    public var version: String
    public var vicalProvider: String
    public var date: Date
    /// Not monotonic in practice (AAMVA's went down between issues): never compared.
    public var vicalIssueID: UInt64?
    public var nextUpdate: Date?
    public var certificateInfos: [CertificateInfo]
}

/// One IACA of a VICAL (CertificateInfo).
public struct CertificateInfo: Sendable {
    /// The IACA certificate, DER.
    public var certificate: [UInt8]
    /// serialNumber (biguint), big-endian bytes.
    public var serialNumber: [UInt8]
    public var ski: [UInt8]
    /// The docTypes this IACA is trusted for; the only ones.
    public var docType: [String]
    public var certificateProfile: [String]?
    public var issuingAuthority: String?
    public var issuingCountry: String?
    public var stateOrProvinceName: String?
    /// The issuer DN, DER, when given.
    public var issuer: [UInt8]?
    /// The subject DN, DER, when given.
    public var subject: [UInt8]?
    public var notBefore: Date?
    public var notAfter: Date?
    /// Whether the list carries extensions for this entry (their content is not used).
    public var hasExtensions: Bool
}
