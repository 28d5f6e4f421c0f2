import CBOR
import MdocCrypto

/// Why a COSE structure could not be read, built or checked.
public enum COSEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The CBOR does not have the COSE shape: says which part is wrong.
    case malformed(String)
    /// An algorithm identifier we do not support (or one that does not fit the key).
    case unsupportedAlgorithm(Int?)
    /// A key that cannot be used as stated.
    case invalidKey(String)
    /// The protected header is not a serialized map.
    case invalidProtectedHeader(CBORError)
    /// No `alg` in the protected header. An `alg` in the unprotected header is not covered
    /// by the signature or tag, so it is never used.
    case algorithmNotProtected
    /// A payload travelled where the structure must be detached (readerAuth, deviceSignature,
    /// deviceMac): it is refused, not verified, since a signature recorded in one session
    /// would then pass in another.
    case attachedPayload
    /// No payload travelled where the structure must carry one (issuerAuth carries the MSO).
    case detachedPayload
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .malformed(let s): return "malformed COSE structure: \(s)"
        case .unsupportedAlgorithm(let a): return "unsupported COSE algorithm \(a.map(String.init) ?? "(none)")"
        case .invalidKey(let s): return "invalid COSE key: \(s)"
        case .invalidProtectedHeader(let e): return "COSE protected header is not a CBOR map: \(e)"
        case .algorithmNotProtected:
            return "no alg in the COSE protected header (an alg in the unprotected header is not trusted)"
        case .attachedPayload:
            return "the COSE payload is attached where it must be detached; it is checked only over the bytes "
                + "this session computed, so the structure is refused"
        case .detachedPayload: return "the COSE payload is detached where it must be carried"
        case .crypto(let e): return e.description
        }
    }
}
