import CBOR
import COSE
import ISO18013
import MdocCrypto
import Presentation

/// A DeviceRequest built from CBOR the model types refuse to build (an ItemsRequest that
/// breaks its CDDL, second-edition members in a "1.0" request, requestInfo members), signed
/// like a correct one: per DocRequest (`readerAuth`) when given an identity, and/or with
/// `readerAuthAll` as `signAll` makes it.
struct RawDeviceRequest {
    /// Makes one `readerAuthAll` element from the transcript, the ItemsRequestBytes in order
    /// and the DeviceRequestInfoBytes.
    typealias SignAll = @Sendable (SessionTranscript, [EmbeddedCBOR], EmbeddedCBOR?) throws -> COSESign1

    var version = "1.0"
    /// Each DocRequest's ItemsRequest, encoded as is.
    var items: [CBOR]
    /// Signs each DocRequest (readerAuth).
    var identity: ReaderIdentity?
    /// DeviceRequestInfo, sent as `#6.24(bstr)` whatever the version.
    var deviceRequestInfo: CBOR?
    var signAll: SignAll?

    /// `{"version": "1.0", "docRequests": [{"itemsRequest": #6.24(items), ? "readerAuth"}]}`.
    static func encoded(items: CBOR, session: ReaderSession, identity: ReaderIdentity?) throws -> [UInt8] {
        try RawDeviceRequest(items: [items], identity: identity).encoded(session: session)
    }

    /// The DeviceRequest for `session`.
    func encoded(session: ReaderSession) throws -> [UInt8] {
        let itemsRequestBytes = items.map(EmbeddedCBOR.init)
        var docRequests: [CBOR] = []
        for bytes in itemsRequestBytes {
            var docRequest = [CBORMapEntry("itemsRequest", .embedded(bytes))]
            if let identity {
                guard let algorithm = identity.key.curve.preferredSignatureAlgorithm else {
                    throw CaseStop.skip("a \(identity.key.curve.rawValue) key cannot sign")
                }
                let auth = try ReaderAuthentication.sign(
                    transcript: session.transcript, itemsRequestBytes: bytes, key: identity.key,
                    algorithm: algorithm, certificateChain: identity.chain)
                docRequest.append(CBORMapEntry("readerAuth", auth.cbor))
            }
            docRequests.append(.map(docRequest))
        }
        var entries = [CBORMapEntry("version", .text(version)), CBORMapEntry("docRequests", .array(docRequests))]
        let info = deviceRequestInfo.map(EmbeddedCBOR.init)
        if let info { entries.append(CBORMapEntry("deviceRequestInfo", .embedded(info))) }
        if let signAll {
            let signature = try signAll(session.transcript, itemsRequestBytes, info)
            entries.append(CBORMapEntry("readerAuthAll", .array([signature.cbor])))
        }
        return CBOR.map(entries).encoded()
    }

    /// ItemsRequest CBOR for `items` with these requestInfo members (18013-5 second edition:
    /// alternativeDataElements, maximumResponseSize, ...).
    static func items(_ items: ItemsRequest, requestInfo: [CBORMapEntry]) -> CBOR {
        var entries = items.cbor.mapEntries?.filter { $0.key != "requestInfo" } ?? []
        entries.append(CBORMapEntry("requestInfo", .map(requestInfo)))
        return .map(entries)
    }

    /// A DeviceRequestInfo with one mandatory use case answered by the first DocRequest.
    static let oneUseCase: CBOR = .map([
        CBORMapEntry(
            "useCases",
            .array([
                .map([
                    CBORMapEntry("mandatory", .bool(true)), CBORMapEntry("documentSets", .array([.array([0])])),
                ])
            ]))
    ])
}
