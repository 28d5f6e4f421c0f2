import CBOR
import COSE
import ISO18013
import MdocCrypto

/// How a reader authenticates its DeviceRequest (ISO 18013-5 9.1.4 and the second edition's
/// readerAuthAll).
extension ReaderSession {
    /// The DeviceRequest for these ItemsRequests, of `version` (by default "1.1" to a "1.1"
    /// engagement, "1.0" otherwise), authenticated as ``authenticated(_:)`` says.
    public func deviceRequest(
        _ items: [ItemsRequest], version: DeviceRequestVersion? = nil, deviceRequestInfo: EmbeddedCBOR? = nil
    ) throws(ISO18013Error) -> DeviceRequest {
        let version = version ?? .default(for: engagement)
        return try authenticated(
            DeviceRequest(
                docRequests: items.map { DocRequest(itemsRequest: $0) }, version: version.rawValue,
                deviceRequestInfo: version == .firstEdition ? nil : deviceRequestInfo))
    }

    /// How ``authenticated(_:)`` signs `request` in this session: none without an identity;
    /// readerAuthAll alone for a "1.1" request to a holder advertising ReaderAuthAll support
    /// (Capabilities key 3), as multipaz readers do; per-document readerAuth otherwise.
    public enum RequestAuthentication: String, Sendable {
        case none
        case readerAuth
        case readerAuthAll
    }

    /// What ``authenticated(_:)`` does with `request`.
    public func authentication(for request: DeviceRequest) -> RequestAuthentication {
        guard identity != nil else { return .none }
        if !DeviceRequest.isFirstEdition(request.version), engagement.supportsReaderAuthAll { return .readerAuthAll }
        return .readerAuth
    }

    /// `request` (its DocRequests' readerAuth and readerAuthAll replaced) signed with this
    /// session's identity as ``authentication(for:)`` says.
    public func authenticated(_ request: DeviceRequest) throws(ISO18013Error) -> DeviceRequest {
        let unsigned = try request.docRequests.map { (doc) throws(ISO18013Error) in
            try DocRequest(itemsRequestBytes: doc.itemsRequestBytes, readerAuth: nil)
        }
        let bare = DeviceRequest(
            docRequests: unsigned, version: request.version, deviceRequestInfo: request.deviceRequestInfo)
        guard let identity else { return bare }
        switch authentication(for: request) {
        case .none:
            return bare
        case .readerAuthAll:
            let signature = try ReaderAuthenticationAll.sign(
                sessionTranscript: transcript, itemsRequests: unsigned.map(\.itemsRequestBytes),
                deviceRequestInfo: request.deviceRequestInfo, key: identity.key, chain: identity.chain)
            return DeviceRequest(
                docRequests: unsigned, version: request.version, deviceRequestInfo: request.deviceRequestInfo,
                readerAuthAll: [signature])
        case .readerAuth:
            guard let algorithm = identity.key.curve.preferredSignatureAlgorithm else {
                throw .invalid(structure: "reader key", reason: "a \(identity.key.curve.rawValue) key cannot sign")
            }
            var docs: [DocRequest] = []
            for doc in unsigned {
                let auth = try ReaderAuthentication.sign(
                    transcript: transcript, itemsRequestBytes: doc.itemsRequestBytes, key: identity.key,
                    algorithm: algorithm, certificateChain: identity.chain)
                docs.append(try DocRequest(itemsRequestBytes: doc.itemsRequestBytes, readerAuth: auth))
            }
            return DeviceRequest(
                docRequests: docs, version: request.version, deviceRequestInfo: request.deviceRequestInfo)
        }
    }
}
