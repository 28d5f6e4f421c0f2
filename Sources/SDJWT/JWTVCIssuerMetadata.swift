import FoundationEssentials
import JOSE
import OAuthWeb

/// JWT VC Issuer Metadata (IETF SD-JWT VC, section "JWT VC Issuer Metadata"): what an issuer
/// publishes at `/.well-known/jwt-vc-issuer` (inserted between the host and the path of its
/// `iss`) so a holder or verifier can find the keys its SD-JWT VCs are signed with, trusting
/// the issuer's HTTPS origin instead of an `x5c` chain. `issuer` must be the `iss`; the keys
/// come inline (`jwks`) or from `jwks_uri`.
public struct JWTVCIssuerMetadata: Sendable {
    public static let wellKnownSuffix = "jwt-vc-issuer"

    public let issuer: String
    /// `jwks.keys`, when given inline.
    public let keys: [JWK]?
    /// `jwks_uri`, when the keys are elsewhere.
    public let keysURL: String?

    /// The metadata URL for `issuer` (an https URL without query or fragment); nil for anything
    /// else (then there is no metadata to fetch).
    public static func url(for issuer: String) -> String? {
        guard let url = URLComponents(string: issuer), url.scheme == "https", let host = url.host, !host.isEmpty,
            url.query == nil, url.fragment == nil
        else { return nil }
        var path = url.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        return "https://\(authority)/.well-known/\(wellKnownSuffix)\(path)"
    }

    /// Reads the metadata fetched for `issuer`.
    ///
    /// - Throws: ``SDJWTError/issuerNotTrusted(_:)`` saying what is wrong with it.
    public init(body: [UInt8], issuer: String) throws(SDJWTError) {
        let json = try JSONValue(parsing: body) { error in
            SDJWTError.issuerNotTrusted("the issuer's jwt-vc-issuer metadata is not JSON (\(error))")
        }
        guard let stated = json["issuer"]?.stringValue else {
            throw .issuerNotTrusted("the issuer's jwt-vc-issuer metadata has no issuer")
        }
        guard IssuerIdentifier.same(stated, issuer) else {
            throw .issuerNotTrusted("the jwt-vc-issuer metadata is for another issuer than the credential's iss")
        }
        self.issuer = stated
        switch (json["jwks"], json["jwks_uri"]?.stringValue) {
        case (let jwks?, nil):
            keys = try Self.keys(jwks)
            keysURL = nil
        case (nil, let uri?):
            guard URLComponents(string: uri)?.scheme == "https" else {
                throw .issuerNotTrusted("the jwt-vc-issuer metadata's jwks_uri is not https")
            }
            keys = nil
            keysURL = uri
        default:
            throw .issuerNotTrusted("the jwt-vc-issuer metadata must have exactly one of jwks and jwks_uri")
        }
    }

    /// The keys of a JWK Set document (what `jwks_uri` serves).
    public static func keys(jwkSet body: [UInt8]) throws(SDJWTError) -> [JWK] {
        do {
            return try keys(try JSONValue(parsing: body))
        } catch let error as SDJWTError {
            throw error
        } catch {
            throw .issuerNotTrusted("the issuer's JWK Set is not JSON (\(error))")
        }
    }

    private static func keys(_ jwks: JSONValue) throws(SDJWTError) -> [JWK] {
        guard let entries = jwks["keys"]?.arrayValue, !entries.isEmpty else {
            throw .issuerNotTrusted("the issuer's JWK Set has no keys")
        }
        var keys: [JWK] = []
        for entry in entries {
            // Keys of types this holder does not verify with are skipped, not fatal.
            if let key = try? JWK(json: entry) { keys.append(key) }
        }
        guard !keys.isEmpty else { throw .issuerNotTrusted("the issuer's JWK Set has no key this holder can use") }
        return keys
    }
}
