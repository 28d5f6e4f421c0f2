import Foundation
import ISO18013
import MdocCrypto
import Testing

/// A one-day root and leaf (document signer or reader) on P-256, for tests that sign over
/// received `...Bytes` structures with a key they hold (Annex D has no signer private keys).
struct ReceivedBytesSigner {
    let root: Certificate
    let leaf: Certificate
    let key: PrivateKey
    let algorithm: SignatureAlgorithm

    static let now = Date()

    /// `eku` is the leaf's extended key usage: the document signer's or the reader's.
    init(eku: String) throws {
        let rootKey = try PrivateKey.generate(.p256)
        key = try PrivateKey.generate(.p256)
        algorithm = try #require(Curve.p256.preferredSignatureAlgorithm)
        let from = Self.now.addingTimeInterval(-86_400)
        let until = Self.now.addingTimeInterval(86_400)
        var builder = CertificateBuilder(
            subject: DistinguishedName(country: "US", commonName: "Received Bytes Test Root"),
            subjectPublicKey: rootKey.publicKey, notBefore: from, notAfter: until)
        builder.basicConstraints = .certificateAuthority(pathLength: 0)
        builder.keyUsage = [.keyCertSign, .cRLSign]
        root = try builder.selfSigned(with: rootKey)
        builder = CertificateBuilder(
            subject: DistinguishedName(country: "US", commonName: "Received Bytes Test Signer"),
            subjectPublicKey: key.publicKey, notBefore: from, notAfter: until)
        builder.basicConstraints = .endEntity
        builder.keyUsage = .digitalSignature
        builder.extendedKeyUsage = [eku]
        leaf = try builder.issued(by: root, issuerKey: rootKey)
    }
}
