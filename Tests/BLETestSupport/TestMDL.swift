import Foundation
import MdocCrypto
import MdocIssuer
import Presentation

/// A test PKI and one presentable mDL (family_name, age_over_18, a portrait of the given
/// size) for the proximity tests of holder and reader.
public struct TestMDL: Sendable {
    public static let docType = "org.iso.18013.5.1.mDL"
    public static let nameSpace = "org.iso.18013.5.1"

    public let pki: TestPKI
    public let credential: PresentableCredential

    public init(portraitSize: Int = 2000) throws {
        pki = try TestPKI.generate()
        let key = try PrivateKey.generate(.p256)
        let now = Date()
        let issuerSigned = try MdocIssuer.issue(
            docType: Self.docType,
            nameSpaces: [
                (
                    Self.nameSpace,
                    [
                        ("family_name", "Doe"), ("age_over_18", true),
                        ("portrait", .bytes([0xFF, 0xD8] + SecureRandom.bytes(portraitSize) + [0xFF, 0xD9])),
                    ]
                )
            ], deviceKey: key.publicKey, documentSignerKey: pki.documentSignerKey,
            documentSignerChain: [pki.documentSigner], validFrom: now.addingTimeInterval(-60),
            validUntil: now.addingTimeInterval(3600))
        credential = PresentableCredential(
            id: "c", docType: Self.docType, issuerSigned: issuerSigned, deviceKey: key)
    }
}
