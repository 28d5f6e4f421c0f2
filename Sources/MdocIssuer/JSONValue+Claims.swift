import JOSE

/// Claims files are read with JOSE's order-keeping JSON reader: elements are issued in the
/// order they are written (Foundation's JSON readers do not keep it), and an integer is told
/// from a number with a fraction or an exponent.
extension JSONValue {
    /// Parses one claims file (RFC 8259 JSON, a UTF-8 byte order mark tolerated).
    ///
    /// - Throws: ``IssuerError/invalidJSON(_:)`` with the line and column of the problem.
    static func claims(_ bytes: [UInt8]) throws(IssuerError) -> JSONValue {
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        do {
            return try JSONValue(parsingKeepingOrder: text)
        } catch {
            guard case .malformed(let reason) = error else { throw .invalidJSON("\(error)") }
            throw .invalidJSON(reason)
        }
    }

    /// What kind of value this is, for messages (never the value).
    var kindName: String {
        switch self {
        case .object, .orderedObject: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .integer, .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}
