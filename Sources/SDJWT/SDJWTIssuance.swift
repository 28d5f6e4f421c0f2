import Base64
import JOSE
import MdocCrypto

/// Makes SD-JWTs (RFC 9901 section 4.2): the test issuer's side, and how tests build
/// credentials with flat, nested and array Disclosures.
public struct SDJWTIssuance: Sendable {
    /// The claims as they should read after every Disclosure is in place.
    public var claims: [String: JSONValue]
    /// The claims and array elements that get a Disclosure of their own (concrete paths:
    /// names and indices). A claim inside a disclosed object may have one too (recursive
    /// disclosure).
    public var selectivelyDisclosable: Set<ClaimPath>
    public var hashAlgorithm: SDHashAlgorithm

    public init(
        claims: [String: JSONValue], selectivelyDisclosable: Set<ClaimPath>, hashAlgorithm: SDHashAlgorithm = .sha256
    ) {
        self.claims = claims
        self.selectivelyDisclosable = selectivelyDisclosable
        self.hashAlgorithm = hashAlgorithm
    }

    /// The payload with digests in place of the selectively disclosable claims, and their
    /// Disclosures (inner ones first).
    public func payload(salt: () -> String = Self.randomSalt) -> (
        payload: [String: JSONValue], disclosures: [Disclosure]
    ) {
        var disclosures: [Disclosure] = []
        var payload = object(claims, at: ClaimPath([]), salt: salt, into: &disclosures)
        payload["_sd_alg"] = .string(hashAlgorithm.rawValue)
        return (payload, disclosures)
    }

    /// A signed SD-JWT in compact form (no Key Binding JWT).
    ///
    /// - Parameter header: further protected header members (`typ` defaults to `dc+sd-jwt`, `x5c`, `kid`).
    public func issue(header: [String: JSONValue] = [:], key: PrivateKey) throws(SDJWTError) -> String {
        let (payload, disclosures) = self.payload()
        var members = header
        if members["typ"] == nil { members["typ"] = "dc+sd-jwt" }
        let jwt: String
        do {
            jwt = try JWS.sign(payload: JSONValue.object(payload).serialized, header: members, key: key)
        } catch {
            throw .jose(error)
        }
        return SDJWT.serialize(issuerSignedJWT: jwt, disclosures: disclosures)
    }

    /// 128 random bits, base64url (RFC 9901 section 9.3 asks for at least 128).
    public static func randomSalt() -> String {
        Base64URL.encode(SecureRandom.bytes(16))
    }

    private func value(_ value: JSONValue, at path: ClaimPath, salt: () -> String, into out: inout [Disclosure])
        -> JSONValue
    {
        if let members = value.objectValue { return .object(object(members, at: path, salt: salt, into: &out)) }
        guard let elements = value.arrayValue else { return value }
        var result: [JSONValue] = []
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(.index(index))
            let inner = self.value(element, at: elementPath, salt: salt, into: &out)
            if selectivelyDisclosable.contains(elementPath) {
                let disclosure = Disclosure(salt: salt(), claimName: nil, value: inner)
                out.append(disclosure)
                result.append(["...": .string(disclosure.digest(hashAlgorithm))])
            } else {
                result.append(inner)
            }
        }
        return .array(result)
    }

    private func object(
        _ members: [String: JSONValue], at path: ClaimPath, salt: () -> String, into out: inout [Disclosure]
    ) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        var digests: [String] = []
        for name in members.keys.sorted() {
            let memberPath = path.appending(.name(name))
            let inner = value(members[name]!, at: memberPath, salt: salt, into: &out)
            if selectivelyDisclosable.contains(memberPath) {
                let disclosure = Disclosure(salt: salt(), claimName: name, value: inner)
                out.append(disclosure)
                digests.append(disclosure.digest(hashAlgorithm))
            } else {
                result[name] = inner
            }
        }
        if !digests.isEmpty { result["_sd"] = .array(digests.sorted().map { .string($0) }) }
        return result
    }
}
