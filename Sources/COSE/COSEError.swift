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
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .malformed(let s): return "malformed COSE structure: \(s)"
        case .unsupportedAlgorithm(let a): return "unsupported COSE algorithm \(a.map(String.init) ?? "(none)")"
        case .invalidKey(let s): return "invalid COSE key: \(s)"
        case .invalidProtectedHeader(let e): return "COSE protected header is not a CBOR map: \(e)"
        case .crypto(let e): return e.description
        }
    }
}
