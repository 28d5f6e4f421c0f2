import FoundationEssentials
import JOSE
import MdocCrypto
import OAuthWeb
import PrintableText

/// Signed Credential Issuer Metadata (OpenID4VCI 1.0 section 12.2.3): the metadata as a JWS
/// (`typ` `openid-credential-issuer-metadata+jwt`) with the issuer's certificate chain in
/// `x5c`, its claims the metadata members plus `sub` (the Credential Issuer Identifier), `iat`
/// and optionally `exp`. The holder asks for it with `Accept: application/jwt` and takes
/// plain JSON from an issuer that does not sign (the media type decides). Earlier drafts
/// carried the same JWT in a `signed_metadata` member of the JSON; its claims then override
/// the unsigned members.
///
/// Signed metadata that does not verify is refused outright (the issuer said it signs): a
/// broken signature, a chain to none of the trust anchors, another `sub`, an expired `exp`.
public enum SignedIssuerMetadata {
    /// The `typ` of the JWT.
    public static let type = "openid-credential-issuer-metadata+jwt"
    /// The metadata request's `Accept`: the signed form first, JSON from issuers without it.
    public static let accept = "application/jwt, application/json;q=0.5"
    /// How far `iat` may be in the future (clock skew).
    public static let skew: TimeInterval = 300

    /// The metadata in `body` (JSON or, when `contentType` is `application/jwt`, a JWT):
    /// signed metadata verified against `trustAnchors` at `time`, its claims taking precedence.
    ///
    /// - Throws: ``IssuanceError/invalidMetadata(_:)`` saying what failed.
    public static func metadata(
        body: [UInt8], contentType: String?, issuer: String, trustAnchors: [Certificate], at time: Date
    ) throws(IssuanceError) -> CredentialIssuerMetadata {
        if contentType == "application/jwt" {
            let compact = String(decoding: body, as: UTF8.self)
            let claims = try verify(compact, issuer: issuer, trustAnchors: trustAnchors, at: time)
            return try CredentialIssuerMetadata(json: .object(claims), issuer: issuer, signed: true)
        }
        let json = try JSONValue(parsing: body) { error in
            IssuanceError.invalidMetadata("the credential issuer metadata is not JSON (\(error))")
        }
        guard var members = json.objectValue, let signed = members["signed_metadata"] else {
            return try CredentialIssuerMetadata(json: json, issuer: issuer, signed: false)
        }
        guard let compact = signed.stringValue else { throw .invalidMetadata("signed_metadata is not a JWT string") }
        for (name, value) in try verify(compact, issuer: issuer, trustAnchors: trustAnchors, at: time) {
            members[name] = value
        }
        members["signed_metadata"] = nil
        return try CredentialIssuerMetadata(json: .object(members), issuer: issuer, signed: true)
    }

    /// Checks the JWT and returns its claims.
    static func verify(_ compact: String, issuer: String, trustAnchors: [Certificate], at time: Date)
        throws(IssuanceError) -> [String: JSONValue]
    {
        let jws: JWS
        let claims: [String: JSONValue]
        do {
            jws = try JWS(compact: compact.trimmingWhitespace())
            claims = try jws.payloadJSON()
        } catch {
            throw .invalidMetadata("the signed metadata is not a JWT (\(error))")
        }
        guard jws.type == type else {
            throw .invalidMetadata("the signed metadata's typ is \(jws.type ?? "missing"), not \(type)")
        }
        guard jws.algorithm != nil, !jws.isUnsecured else {
            throw .invalidMetadata("the signed metadata's alg \(jws.algorithmName) is not one this holder verifies")
        }
        do {
            _ = try jws.verifyWithCertificateChain(anchors: trustAnchors, at: time)
        } catch {
            switch error {
            case .unreadable(let why): throw .invalidMetadata("the signed metadata's x5c cannot be read (\(why))")
            case .missing:
                throw .invalidMetadata("the signed metadata has no x5c certificate chain to check the issuer with")
            case .untrusted(let leaf, let why):
                throw .invalidMetadata(
                    "the signed metadata's certificate \(leaf.subject) is not trusted: \(why); "
                        + "give the issuer's CA with --trust-anchor if you trust it")
            case .signature(_, let why):
                throw .invalidMetadata("the signed metadata's signature does not verify with its certificate (\(why))")
            }
        }
        guard let subject = claims["sub"]?.stringValue, IssuerIdentifier.same(subject, issuer) else {
            throw .invalidMetadata("the signed metadata's sub is not the issuer of the offer")
        }
        guard let issuedAt = claims["iat"]?.numberValue, issuedAt <= time.timeIntervalSince1970 + skew else {
            throw .invalidMetadata("the signed metadata's iat is missing or in the future")
        }
        if let expires = claims["exp"] {
            guard let seconds = expires.numberValue, seconds > time.timeIntervalSince1970 else {
                throw .invalidMetadata("the signed metadata expired (exp)")
            }
        }
        return claims
    }
}
