import CBOR
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import Presentation
import SecureArea

/// Credentials issued for the test by the test issuer, with a fresh PKI.
struct IssuedCredentials {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let ns = "org.iso.18013.5.1"
    static let loyalty = "org.example.loyalty.1"

    let pki: TestPKI
    let now = Date()

    init() throws { pki = try TestPKI.generate() }

    func issue(
        docType: String = mDL, nameSpace: String = ns, elements: [(String, CBOR)]? = nil,
        deviceKey: (any DeviceKey)? = nil
    ) throws -> PresentableCredential {
        let key: any DeviceKey = try deviceKey ?? PrivateKey.generate(.p256)
        let items =
            elements ?? [
                ("family_name", "Mustermann"), ("given_name", "Erika"), ("birth_date", .fullDate("1971-09-01")),
                ("age_over_18", true), ("age_over_21", true), ("document_number", "T1234567"),
                ("portrait", .bytes([0xFF, 0xD8] + [UInt8](repeating: 7, count: 2000) + [0xFF, 0xD9])),
            ]
        let issuerSigned = try MdocIssuer.issue(
            docType: docType, nameSpaces: [(nameSpace, items)], deviceKey: key.publicKey,
            documentSignerKey: pki.documentSignerKey, documentSignerChain: [pki.documentSigner],
            validFrom: now.addingTimeInterval(-60), validUntil: now.addingTimeInterval(86400))
        return PresentableCredential(
            id: UUID().uuidString, docType: docType, issuerSigned: issuerSigned, deviceKey: key)
    }

    var readerIdentity: ReaderIdentity { ReaderIdentity(key: pki.readerKey, chain: [pki.reader]) }
}
