import Consent
import ISO18013
import MdocCrypto

/// A credential the holder can present: the issuer-signed data exactly as issued, and the
/// device key the MSO names.
public struct PresentableCredential: Sendable {
    public let id: String
    public let docType: String
    public let issuerSigned: IssuerSigned
    public let deviceKey: PrivateKey

    public init(id: String, docType: String, issuerSigned: IssuerSigned, deviceKey: PrivateKey) {
        self.id = id
        self.docType = docType
        self.issuerSigned = issuerSigned
        self.deviceKey = deviceKey
    }

    /// Every element the credential holds.
    public var elements: Set<ElementID> {
        Set(issuerSigned.nameSpaces.flatMap { ns in ns.items.map { ElementID(ns.name, $0.elementIdentifier) } })
    }
}
