import JOSE

/// An SD-JWT in compact serialization (RFC 9901 section 4):
/// `<Issuer-signed JWT>~<Disclosure 1>~...~<Disclosure N>~` with, in a presentation, a Key
/// Binding JWT after the last `~`.
///
/// Parsing checks the form only; ``processed()`` checks the Disclosures against the payload and
/// the caller checks the issuer's signature (``issuerSignedJWT``) with a key it trusts.
public struct SDJWT: Sendable {
    /// The issuer-signed JWT.
    public let issuerSignedJWT: JWS
    /// The Disclosures in the order they travelled.
    public let disclosures: [Disclosure]
    /// The Key Binding JWT, when one follows the last `~`.
    public let keyBindingJWT: JWS?

    /// The hash function of the digests (`_sd_alg`).
    public let hashAlgorithm: SDHashAlgorithm

    /// Reads the compact form.
    ///
    /// - Throws: ``SDJWTError/malformed(_:)`` when there is no `~`, a part is empty or a JWT is
    ///   not a compact JWS; ``SDJWTError/invalidDisclosure(index:reason:)``; the same Disclosure
    ///   twice is refused (its digest would be found twice).
    public init(compact: String) throws(SDJWTError) {
        let parts = compact.split(separator: "~", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { throw .malformed("no ~ after the issuer-signed JWT") }
        do {
            issuerSignedJWT = try JWS(compact: String(parts[0]))
            keyBindingJWT = parts[parts.count - 1].isEmpty ? nil : try JWS(compact: String(parts[parts.count - 1]))
        } catch {
            throw .jose(error)
        }
        var disclosures: [Disclosure] = []
        var seen: Set<Substring> = []
        for (offset, part) in parts.dropFirst().dropLast().enumerated() {
            guard !part.isEmpty else { throw .malformed("disclosure \(offset) is empty (two ~ in a row)") }
            guard seen.insert(part).inserted else { throw .disclosureMismatch("disclosure \(offset) appears twice") }
            disclosures.append(try Disclosure(encoded: String(part), index: offset))
        }
        self.disclosures = disclosures
        let payload: [String: JSONValue]
        do {
            payload = try issuerSignedJWT.payloadJSON()
        } catch {
            throw .jose(error)
        }
        hashAlgorithm = try SDHashAlgorithm(payloadMember: payload["_sd_alg"])
    }

    /// The issuer-signed JWT and `disclosures`, each followed by `~`, with no Key Binding JWT.
    public static func serialize(issuerSignedJWT: String, disclosures: [Disclosure]) -> String {
        var text = issuerSignedJWT + "~"
        for disclosure in disclosures {
            text += disclosure.encoded + "~"
        }
        return text
    }

    /// This SD-JWT without its Key Binding JWT (what `sd_hash` covers when one is added).
    public var withoutKeyBinding: String {
        Self.serialize(issuerSignedJWT: issuerSignedJWT.compact, disclosures: disclosures)
    }

    /// The whole compact form, with the Key Binding JWT if there is one.
    public var serialization: String {
        withoutKeyBinding + (keyBindingJWT?.compact ?? "")
    }

    /// The payload with every Disclosure put in place (RFC 9901 section 7.1 steps 3-5), and
    /// where each Disclosure went.
    ///
    /// - Throws: ``SDJWTError/disclosureMismatch(_:)`` when a Disclosure is referenced by no
    ///   digest, a digest appears twice, a claim name is already present at its level, or a
    ///   Disclosure of one kind (property or array element) is referenced as the other.
    public func processed() throws(SDJWTError) -> DisclosedClaims {
        let payload: [String: JSONValue]
        do {
            payload = try issuerSignedJWT.payloadJSON()
        } catch {
            throw .jose(error)
        }
        return try DisclosedClaims(payload: payload, disclosures: disclosures, hashAlgorithm: hashAlgorithm)
    }

    /// A presentation that reveals only the Disclosures at `indices` (positions in
    /// ``disclosures``), in their issued order, without a Key Binding JWT.
    public func presentation(disclosing indices: Set<Int>) -> String {
        Self.serialize(
            issuerSignedJWT: issuerSignedJWT.compact,
            disclosures: disclosures.indices.filter(indices.contains).map { disclosures[$0] })
    }
}
