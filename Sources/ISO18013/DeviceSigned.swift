import CBOR
import COSE
import MdocCrypto

/// `DeviceAuth = {"deviceSignature": COSE_Sign1} / {"deviceMac": COSE_Mac0}`.
public enum DeviceAuth: Sendable, Hashable {
    case signature(COSESign1)
    case mac(COSEMac0)

    init(cbor value: CBOR) throws(ISO18013Error) {
        if let sig = value["deviceSignature"] {
            self = .signature(try Read.sign1(sig, "deviceSignature"))
        } else if let mac = value["deviceMac"] {
            do {
                self = .mac(try COSEMac0(cbor: mac))
            } catch {
                throw .cose(structure: "deviceMac", error)
            }
        } else {
            throw .invalid(structure: "DeviceAuth", reason: "neither deviceSignature nor deviceMac")
        }
    }

    var cbor: CBOR {
        switch self {
        case .signature(let s): return .map([CBORMapEntry("deviceSignature", s.cbor)])
        case .mac(let m): return .map([CBORMapEntry("deviceMac", m.cbor)])
        }
    }
}

/// `DeviceSigned = {"nameSpaces": DeviceNameSpacesBytes, "deviceAuth": DeviceAuth}`.
public struct DeviceSigned: Sendable, Hashable {
    /// DeviceNameSpacesBytes, bytes kept: DeviceAuthentication covers them.
    public let nameSpacesBytes: EmbeddedCBOR
    public let deviceAuth: DeviceAuth

    public init(nameSpacesBytes: EmbeddedCBOR, deviceAuth: DeviceAuth) {
        self.nameSpacesBytes = nameSpacesBytes
        self.deviceAuth = deviceAuth
    }

    init(cbor value: CBOR) throws(ISO18013Error) {
        let s = "DeviceSigned"
        _ = try Read.map(value, s)
        nameSpacesBytes = try Read.embedded(value["nameSpaces"], s, "nameSpaces")
        deviceAuth = try DeviceAuth(cbor: value["deviceAuth"] ?? .null)
    }

    var cbor: CBOR {
        .map([CBORMapEntry("nameSpaces", .embedded(nameSpacesBytes)), CBORMapEntry("deviceAuth", deviceAuth.cbor)])
    }
}

/// ISO 18013-5 9.1.3 mdoc authentication.
public enum DeviceAuthentication {
    /// `DeviceAuthenticationBytes = #6.24(bstr .cbor ["DeviceAuthentication",
    /// SessionTranscript, DocType, DeviceNameSpacesBytes])`.
    public static func bytes(transcript: SessionTranscript, docType: String, nameSpacesBytes: EmbeddedCBOR) -> [UInt8] {
        CBOR.taggedBytes(
            CBOR.encodedArray([
                CBOR.text("DeviceAuthentication").encoded(), transcript.encoded, CBOR.text(docType).encoded(),
                nameSpacesBytes.taggedEncoding,
            ]))
    }

    /// EMacKey = HKDF-SHA256(IKM = ECDH(SDeviceKey, EReaderKey), salt =
    /// SHA-256(SessionTranscriptBytes), info = "EMacKey", L = 32). The holder passes
    /// SDeviceKey and EReaderKey; the reader passes EReaderKey and SDeviceKey.
    public static func eMacKey(privateKey: PrivateKey, peerKey: PublicKey, transcript: SessionTranscript)
        throws(ISO18013Error) -> SecretBytes
    {
        do {
            let z = try privateKey.sharedSecret(with: peerKey)
            return try HKDF.sha256(ikm: z, salt: transcript.salt, info: Array("EMacKey".utf8), length: 32)
        } catch {
            throw .crypto(error)
        }
    }

    /// The empty DeviceNameSpaces (no self-asserted elements), as we send it.
    public static let emptyNameSpaces = EmbeddedCBOR(.map([]))

    /// deviceSignature with the credential's device key.
    public static func sign(
        transcript: SessionTranscript, docType: String, nameSpacesBytes: EmbeddedCBOR = emptyNameSpaces,
        deviceKey: PrivateKey, algorithm: SignatureAlgorithm
    ) throws(ISO18013Error) -> DeviceSigned {
        let payload = bytes(transcript: transcript, docType: docType, nameSpacesBytes: nameSpacesBytes)
        do {
            let sig = try COSESign1.sign(payload: payload, detached: true, key: deviceKey, algorithm: algorithm)
            return DeviceSigned(nameSpacesBytes: nameSpacesBytes, deviceAuth: .signature(sig))
        } catch {
            throw .cose(structure: "deviceSignature", error)
        }
    }

    /// deviceMac with EMacKey (when the device key is for key agreement).
    public static func mac(
        transcript: SessionTranscript, docType: String, nameSpacesBytes: EmbeddedCBOR = emptyNameSpaces,
        eMacKey: SecretBytes
    ) -> DeviceSigned {
        let payload = bytes(transcript: transcript, docType: docType, nameSpacesBytes: nameSpacesBytes)
        return DeviceSigned(
            nameSpacesBytes: nameSpacesBytes,
            deviceAuth: .mac(COSEMac0.authenticate(payload: payload, detached: true, key: eMacKey)))
    }
}
