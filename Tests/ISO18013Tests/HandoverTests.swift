import Base64
import CBOR
import COSE
import Foundation
import ISO18013
import MdocCrypto
import TestSupport
import Testing

/// Online-presentation session transcripts: OpenID4VP 1.0 (Appendix B.2.6) and
/// ISO/IEC TS 18013-7 Annex B. NEGATIVE vectors are spec-violating forms that a holder must
/// not produce: shown not to reproduce.
struct HandoverTests {
    static let thumbprint = Vectors.oid4vp("oid4vp1.0_redirect_jwk_thumbprint")

    @Test func openID4VPRedirectHandoverIsTheSpecs() {
        let h = OnlineHandover.openID4VP(
            clientID: "x509_san_dns:example.com", nonce: "exc7gBkxjx1rdc9udRrveKvSsJIq80avlXeLHhGwqtA",
            jwkThumbprint: Self.thumbprint, responseURI: "https://example.com/response")
        #expect(h.encoded() == Vectors.oid4vp("oid4vp1.0_redirect_OpenID4VPHandover"))
        #expect(SessionTranscript(handover: h).encoded == Vectors.oid4vp("oid4vp1.0_redirect_SessionTranscript"))
        #expect(SessionTranscript(handover: h).encoded == Vectors.iso18013Part7("OID4VP1_SessionTranscript_redirect"))
        // Derived (not published): the unencrypted form has null for the thumbprint.
        let plain = OnlineHandover.openID4VP(
            clientID: "x509_san_dns:example.com", nonce: "exc7gBkxjx1rdc9udRrveKvSsJIq80avlXeLHhGwqtA",
            jwkThumbprint: nil, responseURI: "https://example.com/response")
        #expect(
            SessionTranscript(handover: plain).encoded
                == Vectors.oid4vp("derived_oid4vp1.0_redirect_SessionTranscript_unencrypted"))
    }

    @Test func openID4VPDCAPIHandoverIsTheSpecs() {
        let h = OnlineHandover.openID4VPDCAPI(
            origin: "https://example.com", nonce: "exc7gBkxjx1rdc9udRrveKvSsJIq80avlXeLHhGwqtA",
            jwkThumbprint: Self.thumbprint)
        #expect(h.encoded() == Vectors.oid4vp("oid4vp1.0_dcapi_OpenID4VPDCAPIHandover"))
        #expect(SessionTranscript(handover: h).encoded == Vectors.oid4vp("oid4vp1.0_dcapi_SessionTranscript"))
    }

    @Test func eudiNullThumbprintHandoverReproducesAndItsTstrFormDoesNot() {
        let inputs = (client: "example.com", nonce: "abcdefgh1234567890", uri: "https://example.com/12345/response")
        let h = OnlineHandover.openID4VP(
            clientID: inputs.client, nonce: inputs.nonce, jwkThumbprint: nil, responseURI: inputs.uri)
        #expect(h.encoded() == Vectors.oid4vp("eudi_android_oid4vp1.0_handover_null_thumbprint"))
        #expect(
            SessionTranscript(handover: h).encoded
                == Vectors.oid4vp("eudi_android_oid4vp1.0_sessiontranscript_null_thumbprint"))
        // NEGATIVE: the EUDI vector encodes the thumbprint as a base64url text string. Ours
        // (a bstr of the raw digest, as OpenID4VP 1.0 says) must not equal it.
        let raw = Base64URL.decode("h71LdVmq7J0bIxzn-HYE9dBzj5Tmu-qJ5Ocfnvp3pqQ")!
        let ours = OnlineHandover.openID4VP(
            clientID: inputs.client, nonce: inputs.nonce, jwkThumbprint: raw, responseURI: inputs.uri)
        #expect(ours.encoded() != Vectors.oid4vp("NEGATIVE_eudi_android_handover_thumbprint_as_tstr"))
        #expect(ours.encoded() == Vectors.oid4vp("derived_eudi_android_handover_thumbprint_as_bstr"))
    }

    @Test func iso18013Part7AnnexBHandoverReproducesAndThePreFixFormDoesNot() {
        let h = OnlineHandover.iso18013Part7(
            clientID: "example.com", responseURI: "https://example.com/12345/response", nonce: "abcdefgh1234567890",
            mdocGeneratedNonce: "1234567890abcdefgh")
        #expect(h.encoded() == Vectors.oid4vp("iso18013-7_annexB_OID4VPHandover"))
        #expect(h.encoded() == Vectors.iso18013Part7("TS18013_7_2024_AnnexB_OID4VPHandover"))
        #expect(SessionTranscript(handover: h).encoded == Vectors.oid4vp("iso18013-7_annexB_SessionTranscript"))
        // NEGATIVE: the 2023 example encoded the hashes as arrays of integers.
        let old = OnlineHandover.iso18013Part7(
            clientID: "example.com", responseURI: "https://example.com/12345/response", nonce: "Safdaer\u{a7}$45_3342",
            mdocGeneratedNonce: "23452\u{a7}\u{a7}%\u{a7}$2_KefO")
        #expect(old.encoded() != Vectors.oid4vp("NEGATIVE_awoie_2023_OID4VPHandover_ints"))
        #expect(old.encoded() == Vectors.iso18013Part7("annexB_examples_awoie_OID4VPHandover_CORRECTED_derived"))
    }

    @Test func theAnnexBDeviceResponseVerifiesAgainstItsTranscript() throws {
        let entry = Vectors.entry(Vectors.oid4vp, "iso18013-7_annexB_vp_token_DeviceResponse_b64url")
        let bytes = try #require(Base64URL.decode(entry["value"] as! String))
        let response = try DeviceResponse(bytes: bytes)
        let doc = try #require(response.documents.first)
        let iacaPEM = Vectors.entry(Vectors.oid4vp, "iso18013-7_annexB_IACA_pem")["value"] as! String
        let iaca = try Certificate.parsePEM(iacaPEM)
        let at = RFC3339.date(from: "2024-05-01T00:00:00Z")!
        let issuer = IssuerDataAuthentication.verify(doc.issuerSigned, docType: doc.docType, trustAnchors: iaca, at: at)
        #expect(issuer.isValid, "\(issuer.failures)")
        let transcript = try SessionTranscript(bytes: Vectors.oid4vp("iso18013-7_annexB_SessionTranscript"))
        let mso = try #require(issuer.mso)
        #expect(
            DeviceAuthentication.verify(
                doc.deviceSigned, docType: doc.docType, transcript: transcript, deviceKey: mso.deviceKey, eMacKey: nil)
                == nil)
        // The same signature against the OpenID4VP 1.0 transcript must fail.
        let wrong = SessionTranscript(
            handover: OnlineHandover.openID4VP(
                clientID: "example.com", nonce: "abcdefgh1234567890", jwkThumbprint: nil,
                responseURI: "https://example.com/12345/response"))
        #expect(
            DeviceAuthentication.verify(
                doc.deviceSigned, docType: doc.docType, transcript: wrong, deviceKey: mso.deviceKey, eMacKey: nil)
                != nil)
    }
}
