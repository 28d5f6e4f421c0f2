import CBOR
import ISO18013
import MdocCrypto
import Presentation

/// A DeviceRequest built from CBOR the model types refuse to build (an ItemsRequest that
/// breaks its CDDL), signed like a correct one when the session has an identity.
enum RawDeviceRequest {
    /// `{"version": "1.0", "docRequests": [{"itemsRequest": #6.24(items), ? "readerAuth"}]}`.
    static func encoded(items: CBOR, session: ReaderSession, identity: ReaderIdentity?) throws -> [UInt8] {
        let itemsRequestBytes = EmbeddedCBOR(items)
        var docRequest = [CBORMapEntry("itemsRequest", .embedded(itemsRequestBytes))]
        if let identity {
            guard let algorithm = identity.key.curve.preferredSignatureAlgorithm else {
                throw CaseStop.skip("a \(identity.key.curve.rawValue) key cannot sign")
            }
            let auth = try ReaderAuthentication.sign(
                transcript: session.transcript, itemsRequestBytes: itemsRequestBytes, key: identity.key,
                algorithm: algorithm, certificateChain: identity.chain)
            docRequest.append(CBORMapEntry("readerAuth", auth.cbor))
        }
        return CBOR.map([
            CBORMapEntry("version", "1.0"), CBORMapEntry("docRequests", .array([.map(docRequest)])),
        ]).encoded()
    }
}
