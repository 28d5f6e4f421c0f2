import CBOR
import COSE
import MdocCrypto

/// Why an ISO 18013-5 structure could not be read or used. Messages name structures, fields
/// and doc types, never element values or key material.
public enum ISO18013Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bytes that are not well-formed CBOR (answer with status 11).
    case cbor(structure: String, CBORError)
    /// Well-formed CBOR that is not the structure the standard defines (status 12 in a
    /// DeviceResponse, 11 in a session).
    case invalid(structure: String, reason: String)
    /// Session encryption failed (status 10).
    case sessionEncryption(String)
    case cose(structure: String, COSEError)
    case crypto(CryptoError)
    /// An `mdoc:` URI that cannot be read.
    case invalidURI(String)

    public var description: String {
        switch self {
        case .cbor(let s, let e): return "\(s) is not well-formed CBOR: \(e)"
        case .invalid(let s, let r): return "invalid \(s): \(r)"
        case .sessionEncryption(let r): return "session encryption error: \(r)"
        case .cose(let s, let e): return "\(s): \(e)"
        case .crypto(let e): return e.description
        case .invalidURI(let r): return "invalid mdoc URI: \(r)"
        }
    }
}

/// Small reading helpers shared by the structure parsers.
enum Read {
    static func decode(_ bytes: [UInt8], as structure: String, limits: CBORDecodingLimits = .default)
        throws(ISO18013Error) -> CBOR
    {
        do {
            return try CBOR.decode(bytes, limits: limits)
        } catch {
            throw .cbor(structure: structure, error)
        }
    }

    static func map(_ value: CBOR, _ structure: String) throws(ISO18013Error) -> CBOR {
        guard case .map = value else { throw .invalid(structure: structure, reason: "not a map") }
        return value
    }

    /// `field`'s value as `what` (`read` of it), or an error naming the field.
    private static func field<T>(
        _ value: CBOR?, _ structure: String, _ field: String, _ what: String, _ read: (CBOR) -> T?
    ) throws(ISO18013Error) -> T {
        guard let value, let read = read(value) else {
            throw .invalid(structure: structure, reason: "\(field) missing or not \(what)")
        }
        return read
    }

    static func text(_ value: CBOR?, _ structure: String, _ field: String) throws(ISO18013Error) -> String {
        try Self.field(value, structure, field, "a text string", \.textValue)
    }

    static func bytes(_ value: CBOR?, _ structure: String, _ field: String) throws(ISO18013Error) -> [UInt8] {
        try Self.field(value, structure, field, "a byte string", \.bytesValue)
    }

    static func uint(_ value: CBOR?, _ structure: String, _ field: String) throws(ISO18013Error) -> UInt64 {
        try Self.field(value, structure, field, "an unsigned integer", \.uint64Value)
    }

    static func array(_ value: CBOR?, _ structure: String, _ field: String) throws(ISO18013Error) -> [CBOR] {
        try Self.field(value, structure, field, "an array", \.arrayValue)
    }

    static func entries(_ value: CBOR?, _ structure: String, _ field: String) throws(ISO18013Error)
        -> [CBORMapEntry]
    {
        try Self.field(value, structure, field, "a map", \.mapEntries)
    }

    static func embedded(_ value: CBOR?, _ structure: String, _ field: String) throws(ISO18013Error) -> EmbeddedCBOR {
        try Self.field(value, structure, field, "a tag-24 item", \.embeddedValue)
    }

    static func sign1(_ value: CBOR?, _ structure: String) throws(ISO18013Error) -> COSESign1 {
        guard let value else { throw .invalid(structure: structure, reason: "missing") }
        do {
            return try COSESign1(cbor: value)
        } catch {
            throw .cose(structure: structure, error)
        }
    }
}
