import FoundationEssentials

/// Why a certificate could not be built. Messages name fields and OpenSSL routines, never key
/// material.
public enum CertificateBuilderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field has a value X.509 cannot carry (the text says which field and why).
    case invalidField(field: String, reason: String)
    /// The signing key does not fit: it does not match the issuer certificate or the subject
    /// key (self-signed), or its curve cannot sign.
    case invalidIssuerKey(String)
    /// OpenSSL failed while building, encoding or signing.
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .invalidField(let field, let reason): return "certificate field \(field): \(reason)"
        case .invalidIssuerKey(let reason): return "certificate issuer key: \(reason)"
        case .crypto(let error): return error.description
        }
    }
}

/// Makes X.509 v3 certificates (test PKIs: IACA roots, document signers, reader CAs and reader
/// certificates), signed with OpenSSL.
///
/// The signature is ECDSA with the hash that fits the issuer key (SHA-256 for P-256, SHA-384 for
/// P-384, SHA-512 for P-521; see ``Curve/preferredSignatureAlgorithm``) or EdDSA for Ed25519 and
/// Ed448 issuer keys.
///
/// ```swift
/// var builder = CertificateBuilder(
///     subject: DistinguishedName(country: "US", commonName: "Test IACA"), subjectPublicKey: rootKey.publicKey,
///     notBefore: start, notAfter: end)
/// builder.basicConstraints = .certificateAuthority(pathLength: 0)
/// builder.keyUsage = [.keyCertSign, .cRLSign]
/// let root = try builder.selfSigned(with: rootKey)
/// ```
public struct CertificateBuilder: Sendable {
    /// The basicConstraints extension (always written critical).
    public enum BasicConstraints: Sendable, Hashable {
        /// cA = FALSE (the extension is written with an empty sequence).
        case endEntity
        /// cA = TRUE, with an optional pathLenConstraint.
        case certificateAuthority(pathLength: Int?)
    }

    /// A GeneralName of subjectAltName, issuerAltName or a CRL distribution point.
    public enum GeneralName: Sendable, Hashable {
        /// dNSName.
        case dns(String)
        /// uniformResourceIdentifier.
        case uri(String)
        /// rfc822Name (an email address).
        case email(String)
    }

    /// The subject name.
    public var subject: DistinguishedName
    /// The key the certificate certifies.
    public var subjectPublicKey: PublicKey
    /// The serial number, big-endian unsigned, 1 to 20 bytes, not zero. Defaults to 16 random
    /// bytes with the top bit clear (``randomSerialNumber()``).
    public var serialNumber: [UInt8]
    /// Start of validity (whole seconds are used).
    public var notBefore: Date
    /// End of validity (whole seconds are used).
    public var notAfter: Date
    /// basicConstraints (critical); `nil` leaves the extension out.
    public var basicConstraints: BasicConstraints?
    /// keyUsage (critical); `nil` leaves the extension out.
    public var keyUsage: KeyUsage?
    /// extendedKeyUsage purposes as dotted OIDs (including unregistered ones such as
    /// "1.0.18013.5.1.2"); empty leaves the extension out.
    public var extendedKeyUsage: [String]
    /// Whether extendedKeyUsage is marked critical (ISO 18013-5 document signer and reader
    /// certificates mark it so).
    public var extendedKeyUsageIsCritical: Bool
    /// subjectAltName entries; empty leaves the extension out.
    public var subjectAlternativeNames: [GeneralName]
    /// issuerAltName entries (IACA profiles carry a URI or an email); empty leaves it out.
    public var issuerAlternativeNames: [GeneralName]
    /// cRLDistributionPoints: one distribution point per entry, each a full name; empty leaves
    /// the extension out.
    public var crlDistributionPoints: [GeneralName]
    /// Whether to write subjectKeyIdentifier (SHA-1 of the subject public key, RFC 5280 method 1)
    /// and, on issued (not self-signed) certificates, authorityKeyIdentifier (the issuer's
    /// subject key identifier).
    public var includeKeyIdentifiers: Bool

    /// A builder with a random serial number, the key identifiers on, and no other extension.
    public init(subject: DistinguishedName, subjectPublicKey: PublicKey, notBefore: Date, notAfter: Date) {
        self.subject = subject
        self.subjectPublicKey = subjectPublicKey
        self.serialNumber = Self.randomSerialNumber()
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.basicConstraints = nil
        self.keyUsage = nil
        self.extendedKeyUsage = []
        self.extendedKeyUsageIsCritical = true
        self.subjectAlternativeNames = []
        self.issuerAlternativeNames = []
        self.crlDistributionPoints = []
        self.includeKeyIdentifiers = true
    }

    /// 16 random bytes, the top bit cleared (a positive INTEGER) and the first byte non-zero (so
    /// the DER INTEGER keeps all 16 bytes).
    public static func randomSerialNumber() -> [UInt8] {
        var bytes = SecureRandom.bytes(16)
        bytes[0] &= 0x7f
        if bytes[0] == 0 { bytes[0] = 0x01 }
        return bytes
    }

    /// A self-signed certificate (issuer = subject), signed with `key`, whose public key must be
    /// ``subjectPublicKey``.
    public func selfSigned(with key: PrivateKey) throws(CertificateBuilderError) -> Certificate {
        guard key.publicKey == subjectPublicKey else {
            throw .invalidIssuerKey("a self-signed certificate must be signed with the subject key's private key")
        }
        return try build(issuer: nil, issuerKey: key)
    }

    /// A certificate issued by `issuer`, signed with `issuerKey`, which must be the private key of
    /// the issuer certificate's public key. The issuer name is the issuer's subject.
    public func issued(by issuer: Certificate, issuerKey: PrivateKey) throws(CertificateBuilderError) -> Certificate {
        let issuerPublicKey: PublicKey
        do {
            issuerPublicKey = try issuer.publicKey
        } catch {
            throw .crypto(error)
        }
        guard issuerPublicKey == issuerKey.publicKey else {
            throw .invalidIssuerKey("the key does not belong to the issuer certificate \(issuer.subject)")
        }
        return try build(issuer: issuer, issuerKey: issuerKey)
    }

    /// Checks the fields that OpenSSL would accept but X.509 or this profile does not.
    func validate() throws(CertificateBuilderError) {
        guard !subject.components.isEmpty else { throw .invalidField(field: "subject", reason: "empty name") }
        for component in subject.components where component.value.isEmpty {
            throw .invalidField(field: "subject \(component.attribute.rawValue)", reason: "empty value")
        }
        if let country = subject[.country], country.count != 2 || !country.allSatisfy({ $0.isASCII && $0.isLetter }) {
            throw .invalidField(field: "subject C", reason: "must be two letters (ISO 3166-1 alpha-2)")
        }
        guard (1...20).contains(serialNumber.count), serialNumber.contains(where: { $0 != 0 }) else {
            throw .invalidField(field: "serialNumber", reason: "must be 1 to 20 bytes and not zero")
        }
        if serialNumber.count == 20, serialNumber[0] & 0x80 != 0 {
            throw .invalidField(field: "serialNumber", reason: "a 20-byte serial number must have its top bit clear")
        }
        guard notBefore < notAfter else {
            throw .invalidField(field: "validity", reason: "notBefore must be earlier than notAfter")
        }
        if case .certificateAuthority(let pathLength?) = basicConstraints, pathLength < 0 {
            throw .invalidField(field: "basicConstraints", reason: "pathLength must not be negative")
        }
        if keyUsage == [] {
            throw .invalidField(field: "keyUsage", reason: "at least one bit must be set (or leave it nil)")
        }
        for oid in extendedKeyUsage where !Self.isDottedOID(oid) {
            throw .invalidField(field: "extendedKeyUsage", reason: "\"\(oid)\" is not a dotted OID")
        }
        let named: [(String, [GeneralName])] = [
            ("subjectAltName", subjectAlternativeNames), ("issuerAltName", issuerAlternativeNames),
            ("cRLDistributionPoints", crlDistributionPoints),
        ]
        for (field, names) in named {
            for name in names {
                let text: String
                switch name {
                case .dns(let value), .uri(let value), .email(let value): text = value
                }
                guard !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }) else {
                    throw .invalidField(field: field, reason: "names must be non-empty printable ASCII (IA5String)")
                }
            }
        }
    }

    /// "1.0.18013.5.1.2": at least two arcs, digits only.
    static func isDottedOID(_ text: String) -> Bool {
        let arcs = text.split(separator: ".", omittingEmptySubsequences: false)
        return arcs.count >= 2
            && arcs.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }
}
