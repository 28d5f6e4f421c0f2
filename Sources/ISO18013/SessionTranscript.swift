import CBOR
import MdocCrypto

/// `SessionTranscript = [DeviceEngagementBytes / null, EReaderKeyBytes / null, Handover]`
/// (9.1.5.1). Hashed and signed as `SessionTranscriptBytes = #6.24(bstr .cbor SessionTranscript)`.
public struct SessionTranscript: Sendable, Hashable {
    /// The encoded SessionTranscript array (untagged): built once from the parts, or kept as
    /// received.
    public let encoded: [UInt8]
    public let value: CBOR

    /// For proximity presentation: the engagement and reader key bytes exactly as they
    /// travelled, and the handover (CBOR null for QR engagement).
    public init(deviceEngagement: DeviceEngagement, eReaderKeyBytes: EmbeddedCBOR, handover: CBOR = .null) {
        // DeviceEngagementBytes: a tag 24 around the engagement bytes from the QR code.
        self.init(value: .array([.tagged(24, .bytes(deviceEngagement.bytes)), .embedded(eReaderKeyBytes), handover]))
    }

    /// For online presentation (OpenID4VP, ISO 18013-7): `[null, null, Handover]`.
    public init(handover: CBOR) {
        self.init(value: .array([.null, .null, handover]))
    }

    private init(value: CBOR) {
        self.value = value
        self.encoded = value.encoded()
    }

    /// Reads a SessionTranscript, tagged (SessionTranscriptBytes) or not, keeping its bytes.
    public init(bytes: [UInt8]) throws(ISO18013Error) {
        let s = "SessionTranscript"
        var value = try Read.decode(bytes, as: s)
        var encoded = bytes
        if case .embedded(let inner) = value {
            value = inner.value
            encoded = inner.bytes
        }
        guard case .array(let parts) = value, parts.count == 3 else {
            throw .invalid(structure: s, reason: "not an array of 3")
        }
        self.value = value
        self.encoded = encoded
    }

    /// `SessionTranscriptBytes = #6.24(bstr .cbor SessionTranscript)`.
    public var taggedBytes: [UInt8] {
        CBOR.taggedBytes(encoded)
    }

    /// The HKDF salt of session and MAC keys: SHA-256(SessionTranscriptBytes).
    public var salt: [UInt8] { Digest.sha256(taggedBytes) }

    public var handover: CBOR { value.arrayValue?[2] ?? .null }
}
