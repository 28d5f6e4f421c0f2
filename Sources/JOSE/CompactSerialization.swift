import Base64

/// A JWS or JWE in compact serialization (RFC 7515 section 7.1, RFC 7516 section 7.1):
/// base64url parts joined by dots, the first the protected header, a JSON object.
struct CompactSerialization {
    /// The parts as received.
    let parts: [Substring]
    /// "JWS" or "JWE", for the messages.
    private let kind: String
    private let headerBytes: [UInt8]

    /// Splits `compact` into its `count` parts and decodes the header's base64url.
    ///
    /// - Throws: ``JOSEError/malformed(_:)`` for another number of parts or a header that is
    ///   not base64url.
    init(_ compact: String, count: Int, kind: String) throws(JOSEError) {
        parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == count else { throw .malformed("a compact \(kind) has \(count) parts, not \(parts.count)") }
        guard let headerBytes = Base64URL.decode(parts[0]) else { throw .malformed("\(kind) header is not base64url") }
        self.kind = kind
        self.headerBytes = headerBytes
    }

    /// Part `index` decoded, nil when it is not base64url.
    func decoded(_ index: Int) -> [UInt8]? { Base64URL.decode(parts[index]) }

    /// The protected header's members.
    ///
    /// - Throws: ``JOSEError/malformed(_:)`` unless the header is a JSON object.
    func header() throws(JOSEError) -> [String: JSONValue] {
        guard let header = try JSONValue(parsing: headerBytes).objectValue else {
            throw .malformed("\(kind) header is not a JSON object")
        }
        return header
    }
}
