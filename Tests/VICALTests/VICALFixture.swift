import CBOR
import COSE
import Foundation
import MdocCrypto
import VICAL

/// Signed VICALs of our own: a VICAL root, a signer under it, lists built field by field.
struct VICALFixture {
    let root: Certificate
    let rootKey: PrivateKey
    let signer: Certificate
    let signerKey: PrivateKey

    /// A root and a signer valid from a day ago for a year; `signerEKU` false leaves out the
    /// VICAL signer EKU.
    init(signerEKU: Bool = true, name: String = "Test VICAL") throws {
        let now = Date()
        let from = now.addingTimeInterval(-86_400)
        rootKey = try PrivateKey.generate(.p256)
        var builder = CertificateBuilder(
            subject: DistinguishedName(country: "US", commonName: "\(name) Root"), subjectPublicKey: rootKey.publicKey,
            notBefore: from, notAfter: now.addingTimeInterval(365 * 86_400))
        builder.basicConstraints = .certificateAuthority(pathLength: 0)
        builder.keyUsage = [.keyCertSign, .cRLSign]
        root = try builder.selfSigned(with: rootKey)
        signerKey = try PrivateKey.generate(.p256)
        builder = CertificateBuilder(
            subject: DistinguishedName(country: "US", commonName: "\(name) Signer"),
            subjectPublicKey: signerKey.publicKey, notBefore: from, notAfter: now.addingTimeInterval(365 * 86_400))
        builder.basicConstraints = .endEntity
        builder.keyUsage = .digitalSignature
        builder.extendedKeyUsage = signerEKU ? [VICAL.signerEKU] : ["1.3.6.1.5.5.7.3.4"]
        signer = try builder.issued(by: root, issuerKey: rootKey)
    }

    /// One certificateInfo for `certificate`, trusted for `docTypes`.
    static func info(_ certificate: Certificate, docTypes: [String]) -> CBOR {
        .map([
            CBORMapEntry("certificate", .bytes(certificate.der)),
            CBORMapEntry("serialNumber", .tagged(2, .bytes([0x01, 0x02]))),
            CBORMapEntry("ski", .bytes(certificate.subjectKeyIdentifier ?? [0])),
            CBORMapEntry("docType", .array(docTypes.map { .text($0) })),
            CBORMapEntry("issuingCountry", "US"),
        ])
    }

    /// The VICAL payload map.
    static func payload(
        infos: [CBOR], date: Date = Date().addingTimeInterval(-3600),
        nextUpdate: Date? = Date().addingTimeInterval(86_400)
    ) -> CBOR {
        var entries = [
            CBORMapEntry("version", "1.0"), CBORMapEntry("vicalProvider", "Test Provider"),
            CBORMapEntry("date", .tdate(date)), CBORMapEntry("vicalIssueID", 7),
        ]
        if let nextUpdate { entries.append(CBORMapEntry("nextUpdate", .tdate(nextUpdate))) }
        entries.append(CBORMapEntry("certificateInfos", .array(infos)))
        return .map(entries)
    }

    /// The signed list: a COSE_Sign1 over `payload`'s encoding, x5chain the signer alone.
    func sign(_ payload: CBOR) throws -> [UInt8] {
        try sign(bytes: payload.encoded())
    }

    func sign(bytes: [UInt8]) throws -> [UInt8] {
        try COSESign1.sign(
            payload: bytes, detached: false, key: signerKey, algorithm: .es256, unprotected: .x5chain([signer.der])
        ).cbor.encoded()
    }
}
