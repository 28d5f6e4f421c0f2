import Base64
import JOSE

/// One Disclosure (RFC 9901 section 4.2): the salt, the claim name (none for an array
/// element) and the value, as the issuer encoded them.
///
/// ``encoded`` is kept exactly as received: the digest in the issuer-signed JWT is over those
/// characters, and a presentation sends them again unchanged.
public struct Disclosure: Sendable, Hashable {
    /// The base64url text as it travelled.
    public let encoded: String
    public let salt: String
    /// The claim name for an object property; nil for an array element.
    public let claimName: String?
    public let value: JSONValue

    /// Reads a Disclosure. `index` is its position in the SD-JWT, for messages.
    ///
    /// - Throws: ``SDJWTError/invalidDisclosure(index:reason:)`` unless it is base64url of a
    ///   JSON array of a string salt, a string claim name other than `_sd` and `...`, and a
    ///   value (or of a salt and a value, for an array element).
    public init(encoded: String, index: Int = 0) throws(SDJWTError) {
        guard let bytes = Base64URL.decode(encoded) else {
            throw .invalidDisclosure(index: index, reason: "not base64url")
        }
        let json = try JSONValue(parsing: bytes) { error in
            SDJWTError.invalidDisclosure(index: index, reason: "not JSON (\(error))")
        }
        guard let elements = json.arrayValue, elements.count == 2 || elements.count == 3 else {
            throw .invalidDisclosure(index: index, reason: "not a JSON array of 2 or 3 elements")
        }
        guard let salt = elements[0].stringValue else {
            throw .invalidDisclosure(index: index, reason: "the salt is not a string")
        }
        var claimName: String?
        if elements.count == 3 {
            guard let name = elements[1].stringValue else {
                throw .invalidDisclosure(index: index, reason: "the claim name is not a string")
            }
            guard name != "_sd", name != "..." else {
                throw .invalidDisclosure(index: index, reason: "the claim name \(name) is reserved")
            }
            claimName = name
        }
        self.encoded = encoded
        self.salt = salt
        self.claimName = claimName
        self.value = elements[elements.count - 1]
    }

    /// A new Disclosure (for issuers and tests): the JSON array serialized and base64url-encoded.
    public init(salt: String, claimName: String?, value: JSONValue) {
        let array: JSONValue =
            claimName.map { .array([.string(salt), .string($0), value]) } ?? .array([.string(salt), value])
        self.encoded = Base64URL.encode(array.serialized)
        self.salt = salt
        self.claimName = claimName
        self.value = value
    }

    /// The digest the issuer-signed JWT uses for this Disclosure.
    public func digest(_ algorithm: SDHashAlgorithm) -> String {
        algorithm.digest(ofASCII: encoded)
    }
}
