/// Why CBOR could not be decoded. Messages name positions and kinds, never values.
public enum CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ends inside an item.
    case truncated(offset: Int)
    /// Bytes remain after the single top-level item.
    case trailingBytes(offset: Int)
    /// Not well-formed CBOR at this offset (reserved initial byte, misplaced break, ...).
    case malformed(offset: Int, reason: String)
    /// A text string that is not UTF-8.
    case invalidUTF8(offset: Int)
    /// A map with the same key twice.
    case duplicateMapKey(offset: Int)
    /// A declared length or count that the remaining input cannot hold.
    case declaredLengthExceedsInput(offset: Int, declared: UInt64, available: Int)
    /// Nesting deeper than the limit.
    case depthLimitExceeded(limit: Int)
    /// More items than the limit.
    case itemLimitExceeded(limit: Int)
    /// Input longer than the limit.
    case sizeLimitExceeded(size: Int, limit: Int)
    /// The content of a tag-24 byte string is not one complete CBOR item.
    case invalidEmbeddedCBOR(offset: Int, reason: String)

    public var description: String {
        switch self {
        case .truncated(let o): return "CBOR input ends inside an item (at byte \(o))"
        case .trailingBytes(let o): return "unexpected bytes after the CBOR item (from byte \(o))"
        case .malformed(let o, let r): return "malformed CBOR at byte \(o): \(r)"
        case .invalidUTF8(let o): return "CBOR text string at byte \(o) is not valid UTF-8"
        case .duplicateMapKey(let o): return "CBOR map at byte \(o) has a duplicate key"
        case .declaredLengthExceedsInput(let o, let d, let a):
            return "CBOR item at byte \(o) declares \(d) entries or bytes but only \(a) bytes remain"
        case .depthLimitExceeded(let l): return "CBOR nesting deeper than the limit of \(l)"
        case .itemLimitExceeded(let l): return "CBOR input has more than the limit of \(l) items"
        case .sizeLimitExceeded(let s, let l): return "CBOR input of \(s) bytes exceeds the limit of \(l) bytes"
        case .invalidEmbeddedCBOR(let o, let r): return "tag 24 at byte \(o) does not hold one CBOR item: \(r)"
        }
    }
}
