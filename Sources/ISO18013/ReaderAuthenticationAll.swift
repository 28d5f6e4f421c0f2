import CBOR
import COSE
import FoundationEssentials
import MdocCrypto

/// ISO 18013-5 (second edition) `readerAuthAll`: one reader signature over every DocRequest
/// of a DeviceRequest "1.1" and its DeviceRequestInfo.
///
/// `ReaderAuthenticationAllBytes = #6.24(bstr .cbor ["ReaderAuthenticationAll",
/// SessionTranscript, [+ ItemsRequestBytes], DeviceRequestInfoBytes / null])`, signed as a
/// detached COSE_Sign1 with `alg` protected and the reader chain in x5chain, as readerAuth.
public enum ReaderAuthenticationAll {
    /// How ``sign(sessionTranscript:itemsRequests:deviceRequestInfo:key:chain:algorithm:form:)``
    /// shapes the signature. Only ``standard`` is what a correct reader sends; the others are
    /// what a conformance case or a test sends to show a holder refuses them.
    public enum Form: Sendable, CaseIterable {
        /// Detached, `alg` protected, over the four-member ReaderAuthenticationAll.
        case standard
        /// The three-member array some drafts signed (no DeviceRequestInfoBytes member):
        /// accepted only for a request without `deviceRequestInfo`.
        case withoutDeviceRequestInfo
        /// The ReaderAuthenticationAllBytes attached as the payload (refused).
        case attachedPayload
        /// `alg` only in the unprotected header, the protected header empty (refused).
        case algorithmOnlyUnprotected
    }

    /// ReaderAuthenticationAllBytes for these ItemsRequestBytes and DeviceRequestInfoBytes, as
    /// they travel (received bytes kept exactly).
    public static func bytes(
        sessionTranscript: SessionTranscript, itemsRequests: [EmbeddedCBOR], deviceRequestInfo: EmbeddedCBOR?
    ) -> [UInt8] {
        CBOR.taggedBytes(
            CBOR.encodedArray(
                members(sessionTranscript, itemsRequests) + [
                    deviceRequestInfo?.taggedEncoding ?? CBOR.null.encoded()
                ]))
    }

    /// The three-member form (no DeviceRequestInfoBytes member).
    public static func bytesWithoutDeviceRequestInfo(
        sessionTranscript: SessionTranscript, itemsRequests: [EmbeddedCBOR]
    ) -> [UInt8] {
        CBOR.taggedBytes(CBOR.encodedArray(members(sessionTranscript, itemsRequests)))
    }

    private static func members(_ transcript: SessionTranscript, _ itemsRequests: [EmbeddedCBOR]) -> [[UInt8]] {
        [
            CBOR.text("ReaderAuthenticationAll").encoded(), transcript.encoded,
            CBOR.encodedArray(itemsRequests.map(\.taggedEncoding)),
        ]
    }

    /// Signs as a reader: one element of `readerAuthAll` for a request whose DocRequests carry
    /// `itemsRequests` (in order) and `deviceRequestInfo`. `algorithm` defaults to the key's
    /// preferred one; `chain` is leaf first and goes in x5chain (unprotected, as readerAuth).
    public static func sign(
        sessionTranscript: SessionTranscript, itemsRequests: [EmbeddedCBOR], deviceRequestInfo: EmbeddedCBOR?,
        key: PrivateKey, chain: [Certificate], algorithm: SignatureAlgorithm? = nil, form: Form = .standard
    ) throws(ISO18013Error) -> COSESign1 {
        guard let algorithm = algorithm ?? key.curve.preferredSignatureAlgorithm else {
            throw .invalid(structure: "reader key", reason: "a \(key.curve.rawValue) key cannot sign")
        }
        let payload =
            form == .withoutDeviceRequestInfo
            ? bytesWithoutDeviceRequestInfo(sessionTranscript: sessionTranscript, itemsRequests: itemsRequests)
            : bytes(
                sessionTranscript: sessionTranscript, itemsRequests: itemsRequests,
                deviceRequestInfo: deviceRequestInfo)
        if form == .algorithmOnlyUnprotected {
            return try ReaderAuthentication.signWithUnprotectedAlgorithm(
                payload: payload, key: key, algorithm: algorithm, chain: chain)
        }
        do {
            return try COSESign1.sign(
                payload: payload, detached: form != .attachedPayload, key: key, algorithm: algorithm,
                unprotected: .x5chain(chain.map(\.der)))
        } catch {
            throw .cose(structure: "readerAuthAll", error)
        }
    }

    /// Signs `request` (its DocRequests and DeviceRequestInfo) and returns it as a "1.1"
    /// request carrying that signature in `readerAuthAll`.
    public static func signed(
        _ request: DeviceRequest, sessionTranscript: SessionTranscript, key: PrivateKey, chain: [Certificate],
        form: Form = .standard
    ) throws(ISO18013Error) -> DeviceRequest {
        let signature = try sign(
            sessionTranscript: sessionTranscript, itemsRequests: request.docRequests.map(\.itemsRequestBytes),
            deviceRequestInfo: request.deviceRequestInfo, key: key, chain: chain, form: form)
        return DeviceRequest(
            docRequests: request.docRequests, version: "1.1", deviceRequestInfo: request.deviceRequestInfo,
            readerAuthAll: [signature])
    }

    /// Verifies the request's `readerAuthAll` for this session: trusted when one of its
    /// signatures is trusted; otherwise the first one's result. The three-member form counts
    /// only for a request without `deviceRequestInfo` (so what is shown to the user from it is
    /// always signed). A "1.0" request has no readerAuthAll: whatever it carries is `.absent`.
    public static func verify(
        request: DeviceRequest, sessionTranscript: SessionTranscript, trustAnchors: [Certificate], at time: Date
    ) -> ReaderAuthenticationResult {
        guard !DeviceRequest.isFirstEdition(request.version), !request.readerAuthAll.isEmpty else { return .absent }
        let itemsRequests = request.docRequests.map(\.itemsRequestBytes)
        var payloads = [
            bytes(
                sessionTranscript: sessionTranscript, itemsRequests: itemsRequests,
                deviceRequestInfo: request.deviceRequestInfo)
        ]
        if request.deviceRequestInfo == nil {
            payloads.append(
                bytesWithoutDeviceRequestInfo(sessionTranscript: sessionTranscript, itemsRequests: itemsRequests))
        }
        var first: ReaderAuthenticationResult?
        for signature in request.readerAuthAll {
            let result = ReaderAuthentication.verify(
                signature, payloads: payloads, trustAnchors: trustAnchors, at: time)
            if result.isTrusted { return result }
            if first == nil { first = result }
        }
        return first ?? .absent
    }
}
