import CBOR
import MdocCrypto

/// Handovers for online presentation, where the SessionTranscript is `[null, null, Handover]`.
public enum OnlineHandover {
    /// OpenID4VP 1.0 (Appendix B.2.6.1): `["OpenID4VPHandover", SHA-256(CBOR [client_id,
    /// nonce, jwkThumbprint / null, response_uri])]`. The thumbprint is the RFC 7638 SHA-256
    /// thumbprint (a bstr) of the verifier key the response is encrypted to, or null when
    /// the response is not encrypted.
    public static func openID4VP(clientID: String, nonce: String, jwkThumbprint: [UInt8]?, responseURI: String) -> CBOR
    {
        let info: CBOR = [.text(clientID), .text(nonce), jwkThumbprint.map { .bytes($0) } ?? .null, .text(responseURI)]
        return ["OpenID4VPHandover", .bytes(Digest.sha256(info.encoded()))]
    }

    /// OpenID4VP 1.0 over the Digital Credentials API (B.2.6.2): `["OpenID4VPDCAPIHandover",
    /// SHA-256(CBOR [origin, nonce, jwkThumbprint / null])]`.
    public static func openID4VPDCAPI(origin: String, nonce: String, jwkThumbprint: [UInt8]?) -> CBOR {
        let info: CBOR = [.text(origin), .text(nonce), jwkThumbprint.map { .bytes($0) } ?? .null]
        return ["OpenID4VPDCAPIHandover", .bytes(Digest.sha256(info.encoded()))]
    }

    /// ISO/IEC TS 18013-7 Annex B (before OpenID4VP 1.0): `[SHA-256(CBOR [client_id,
    /// mdocGeneratedNonce]), SHA-256(CBOR [response_uri, mdocGeneratedNonce]), nonce]`.
    public static func iso18013Part7(clientID: String, responseURI: String, nonce: String, mdocGeneratedNonce: String)
        -> CBOR
    {
        let clientHash = Digest.sha256(CBOR.array([.text(clientID), .text(mdocGeneratedNonce)]).encoded())
        let responseHash = Digest.sha256(CBOR.array([.text(responseURI), .text(mdocGeneratedNonce)]).encoded())
        return [.bytes(clientHash), .bytes(responseHash), .text(nonce)]
    }
}
