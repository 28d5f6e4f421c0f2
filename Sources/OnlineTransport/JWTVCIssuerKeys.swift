import JOSE
import MdocCrypto
import SDJWT

/// The signing keys an SD-JWT VC issuer publishes in its JWT VC Issuer Metadata
/// (``JWTVCIssuerMetadata``), fetched over HTTPS (the system's trust store plus `tlsCAs`): the
/// issuer's web origin vouches for them, for SD-JWT VCs that carry no `x5c` chain.
public enum JWTVCIssuerKeys {
    /// The keys of `issuer` (an SD-JWT VC's `iss`).
    ///
    /// - Throws: ``SDJWTError/issuerNotTrusted(_:)`` saying what could not be fetched or read.
    public static func fetch(issuer: String, tlsCAs: [Certificate] = []) async throws(SDJWTError) -> [JWK] {
        guard let url = JWTVCIssuerMetadata.url(for: issuer) else {
            throw .issuerNotTrusted("the credential's iss is not an https URL, so it has no jwt-vc-issuer metadata")
        }
        let fetcher: HTTPFetcher
        do {
            fetcher = try HTTPFetcher(additionalTrustRoots: tlsCAs)
        } catch {
            throw .issuerNotTrusted("\(error)")
        }
        // The issuer (iss) is the party: the jwks_uri its metadata names may lead to public
        // addresses and to the class of the address the metadata came from.
        let answer = try await get(url, fetcher, what: "metadata", policy: .unrestricted)
        let metadata = try JWTVCIssuerMetadata(body: answer.body, issuer: issuer)
        if let keys = metadata.keys { return keys }
        guard let keysURL = metadata.keysURL else { return [] }
        let policy = EndpointPolicy(namedBy: "the issuer", partyAddress: answer.remoteAddress)
        return try JWTVCIssuerMetadata.keys(
            jwkSet: try await get(keysURL, fetcher, what: "JWK Set (jwks_uri)", policy: policy).body)
    }

    private static func get(_ url: String, _ fetcher: HTTPFetcher, what: String, policy: EndpointPolicy)
        async throws(SDJWTError) -> HTTPResponse
    {
        let response: HTTPResponse
        do {
            response = try await fetcher.get(url, accept: "application/json", policy: policy)
        } catch {
            throw .issuerNotTrusted("the issuer's \(what) could not be fetched: \(error)")
        }
        guard response.status == 200 else {
            throw .issuerNotTrusted("the issuer's \(what) at \(response.host) answered HTTP \(response.status)")
        }
        return response
    }
}
