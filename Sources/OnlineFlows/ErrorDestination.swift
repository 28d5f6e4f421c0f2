import Base64
import FoundationEssentials
import JOSE
import MdocCrypto
import OnlineTransport
import OpenID4VP
import PrintableText

/// Where the error about a request that did not pass ``RequestObjectVerifier`` may still be
/// sent.
///
/// A verifier only gets an error at its `response_uri` when the request's origin is proven
/// (else anyone could make the wallet POST to any address). The verifier refuses a request
/// either because its origin is not proven (a bad signature, a client_id the certificate does
/// not name, a foreign response_uri: nothing is sent) or because of what it asks
/// (`vp_formats_not_supported`, `invalid_client`, an invalid parameter, ...). For the second
/// kind this checks the origin by the same rules, from the raw parameters: a signature by a
/// certificate chaining to a configured anchor that names the client_id (`x509_san_dns:`,
/// with the response_uri on that host; `x509_hash:`), a pre-registered verifier's key or
/// roots and response URIs, or a `redirect_uri:` client_id that is the response_uri.
/// Decentralized identifiers and everything else: the error is shown locally only.
enum ErrorDestination {
    /// The error codes that describe the request's content rather than its origin.
    static let contentErrors: Set<AuthorizationError.Code> = [
        .invalidRequest, .invalidClient, .vpFormatsNotSupported, .unsupportedResponseType, .invalidScope,
        .invalidTransactionData,
    ]

    /// Where to POST the error response, and its `state`.
    struct Target: Sendable, Equatable {
        var responseURI: String
        var state: String?
    }

    /// For a request given as URL parameters.
    static func forParameters(
        _ parameters: [String: String], error: AuthorizationError, trust: VerifierTrustConfiguration
    ) -> Target? {
        guard contentErrors.contains(error.code) else { return nil }
        return unsigned(parameters.mapValues { .string($0) }, trust: trust)
    }

    /// For a Request Object (by value or fetched from request_uri).
    static func forRequestObject(
        _ requestObject: String, clientID: String, walletNonce: String?, error: AuthorizationError,
        trust: VerifierTrustConfiguration, at time: Date
    ) -> Target? {
        guard contentErrors.contains(error.code),
            let jws = try? JWS(compact: requestObject.trimmingWhitespace()),
            let type = jws.type?.lowercased(),
            type == RequestObjectVerifier.requestObjectType
                || type == "application/" + RequestObjectVerifier.requestObjectType,
            let claims = try? jws.payloadJSON(), claims["client_id"]?.stringValue == clientID
        else { return nil }
        if let walletNonce, claims["wallet_nonce"]?.stringValue != walletNonce { return nil }
        // A replayed old request gets nothing either.
        if let exp = claims["exp"]?.numberValue, Date(timeIntervalSince1970: exp) < time - trust.clockSkew {
            return nil
        }
        if jws.isUnsecured { return jws.signature.isEmpty ? unsigned(claims, trust: trust) : nil }
        guard let target = responseTarget(claims, clientID: ClientIdentifier(clientID)) else { return nil }
        let client = ClientIdentifier(clientID)
        switch client.prefix {
        case .x509SanDNS:
            guard let leaf = verifiedLeaf(jws, anchors: trust.trustAnchors, trust: trust, at: time),
                leaf.dnsSubjectAlternativeNames.contains(where: { $0.lowercased() == client.value.lowercased() }),
                URLComponents(string: target.responseURI)?.host?.lowercased() == client.value.lowercased()
            else { return nil }
            return target
        case .x509Hash:
            guard let leaf = verifiedLeaf(jws, anchors: trust.trustAnchors, trust: trust, at: time),
                Base64URL.encode(leaf.sha256Fingerprint) == client.value
            else { return nil }
            return target
        case .preRegistered:
            guard let verifier = trust.preRegistered.first(where: { $0.clientID == clientID }),
                verifier.responseURIs.contains(target.responseURI)
            else { return nil }
            if let jwk = verifier.publicKey {
                guard let key = try? jwk.publicKey(), (try? jws.verify(with: key)) != nil else { return nil }
                return target
            }
            guard !verifier.trustAnchors.isEmpty,
                verifiedLeaf(jws, anchors: verifier.trustAnchors, trust: nil, at: time) != nil
            else { return nil }
            return target
        default:
            return nil
        }
    }

    /// Unsigned parameters: `redirect_uri:` (the client_id is the response_uri) or a
    /// pre-registered verifier that need not sign.
    private static func unsigned(_ parameters: [String: JSONValue], trust: VerifierTrustConfiguration) -> Target? {
        guard let clientID = parameters["client_id"]?.stringValue else { return nil }
        let client = ClientIdentifier(clientID)
        guard let target = responseTarget(parameters, clientID: client) else { return nil }
        switch client.prefix {
        case .redirectURI:
            return target.responseURI == client.value ? target : nil
        case .preRegistered:
            guard let verifier = trust.preRegistered.first(where: { $0.clientID == clientID }),
                !verifier.requiresSignedRequests, verifier.responseURIs.contains(target.responseURI)
            else { return nil }
            return target
        default:
            return nil
        }
    }

    /// The response_uri (for `redirect_uri:`, the client_id when absent) if it is https and the
    /// response mode is one this wallet answers with.
    private static func responseTarget(_ parameters: [String: JSONValue], clientID: ClientIdentifier) -> Target? {
        guard let mode = parameters["response_mode"]?.stringValue,
            AuthorizationRequest.ResponseMode(rawValue: mode) != nil
        else { return nil }
        let fallback = clientID.prefix == .redirectURI ? clientID.value : nil
        guard let responseURI = parameters["response_uri"]?.stringValue ?? fallback,
            (try? HTTPFetcher.checkedHost(responseURI)) != nil
        else { return nil }
        return Target(responseURI: responseURI, state: parameters["state"]?.stringValue)
    }

    /// The leaf of the `x5c` chain when the leaf's key verifies the signature and the chain
    /// leads to one of `anchors` (or `trust` allows untrusted certificates).
    private static func verifiedLeaf(
        _ jws: JWS, anchors: [Certificate], trust: VerifierTrustConfiguration?, at time: Date
    ) -> Certificate? {
        guard let chain = try? jws.certificateChain(), let leaf = chain.first, let key = try? leaf.publicKey,
            (try? jws.verify(with: key)) != nil
        else { return nil }
        let result = CertificateChainValidator.validate(chain: chain, anchors: anchors, at: time)
        guard result.isValid || trust?.allowUntrustedCertificates == true else { return nil }
        return leaf
    }
}
