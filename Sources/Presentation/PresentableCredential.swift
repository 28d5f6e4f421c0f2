import Consent
import ISO18013
import MdocCrypto
import SecureArea

/// A credential the holder can present: the issuer-signed data exactly as issued, and the
/// device key the MSO names (in its secure area: the engines only ask it to sign or agree).
public struct PresentableCredential: Sendable {
    public let id: String
    public let docType: String
    public let issuerSigned: IssuerSigned
    public let deviceKey: any DeviceKey

    public init(id: String, docType: String, issuerSigned: IssuerSigned, deviceKey: any DeviceKey) {
        self.id = id
        self.docType = docType
        self.issuerSigned = issuerSigned
        self.deviceKey = deviceKey
    }

    /// Every element the credential holds.
    public var elements: Set<ElementID> {
        var elements = Set<ElementID>(minimumCapacity: issuerSigned.nameSpaces.reduce(0) { $0 + $1.items.count })
        for ns in issuerSigned.nameSpaces {
            for item in ns.items { elements.insert(ElementID(ns.name, item.elementIdentifier)) }
        }
        return elements
    }
}
