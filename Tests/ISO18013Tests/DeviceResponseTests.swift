import CBOR
import COSE
import Foundation
import ISO18013
import MdocCrypto
import TestSupport
import Testing

/// DeviceResponse, issuer data authentication and mdoc authentication against Annex D
/// (D.4.1.2, D.5.2, D.5.3). The Annex D certificates have expired: checks use a fixed clock.
struct DeviceResponseTests {
    static let transcript = try! SessionTranscript(bytes: Vectors.annexD("SessionTranscriptBytes"))
    static let iaca = try! Certificate(der: Vectors.annexD("IACA_certificate"))
    static let mDL = "org.iso.18013.5.1.mDL"
    static let inValidity = RFC3339.date(from: "2021-06-01T00:00:00Z")!

    static func response() throws -> DeviceResponse { try DeviceResponse(bytes: Vectors.annexD("DeviceResponse")) }

    @Test func readsAndReencodesTheAnnexDResponse() throws {
        let r = try Self.response()
        #expect(r.version == "1.0")
        #expect(r.status == 0)
        #expect(r.documents.count == 1)
        let doc = r.documents[0]
        #expect(doc.docType == Self.mDL)
        let items = doc.issuerSigned.nameSpaces.flatMap(\.items)
        #expect(items.count == 6)
        let portrait = try #require(items.first { $0.elementIdentifier == "portrait" })
        #expect(portrait.elementValue == .bytes(Vectors.annexD("DeviceResponse_portrait_jpeg")))
        #expect(r.encoded == Vectors.annexD("DeviceResponse"))
        #expect(doc.issuerSigned.issuerAuth.cbor.encoded() == Vectors.annexD("IssuerAuth_COSE_Sign1"))
        guard case .mac(let mac) = doc.deviceSigned.deviceAuth else {
            Issue.record("Annex D uses deviceMac")
            return
        }
        #expect(CBOR.map([CBORMapEntry("deviceMac", mac.cbor)]).encoded() == Vectors.annexD("DeviceAuth_deviceMac"))
    }

    @Test func theMSOAndItsSignatureInputAreTheStandards() throws {
        let issuerSigned = try Self.response().documents[0].issuerSigned
        let (msoBytes, mso) = try issuerSigned.mobileSecurityObject()
        #expect(msoBytes == Vectors.annexD("MobileSecurityObjectBytes"))
        #expect(mso.cbor.encoded() == Vectors.annexD("MobileSecurityObject"))
        #expect(mso.docType == Self.mDL)
        #expect(mso.deviceKey.x == Vectors.annexD("SDeviceKey_x"))
        #expect(mso.deviceKey.y == Vectors.annexD("SDeviceKey_y"))
        #expect(
            COSESign1.sigStructure(protected: issuerSigned.issuerAuth.protected.bytes, payload: msoBytes)
                == Vectors.annexD("IssuerAuth_Sig_structure"))
    }

    @Test func theIsomdlIssuerSignedReadsAndReencodes() throws {
        let bytes = Vectors.annexD("IssuerSigned")
        let issuerSigned = try IssuerSigned(bytes: bytes)
        #expect(issuerSigned.cbor.encoded() == bytes)
        #expect(issuerSigned.nameSpaces.flatMap(\.items).count == 6)
    }

    @Test func issuerDataAuthenticationPassesWithTheIACAAtAFixedTime() throws {
        let doc = try Self.response().documents[0]
        let r = IssuerDataAuthentication.verify(
            doc.issuerSigned, docType: Self.mDL, trustAnchors: [Self.iaca], at: Self.inValidity)
        #expect(r.isValid, "\(r.failures)")
        #expect(r.elements.count == 6)
        #expect(r.elements.allSatisfy { $0.digestMatches })
        #expect(r.trustAnchor == Self.iaca)
        #expect(r.documentSigner?.subject.contains("utopia ds") == true)
        // The isomdl IssuerSigned of the same credential verifies too.
        let full = try IssuerSigned(bytes: Vectors.annexD("IssuerSigned"))
        let fullResult = IssuerDataAuthentication.verify(
            full, docType: Self.mDL, trustAnchors: [Self.iaca], at: Self.inValidity)
        #expect(fullResult.isValid, "\(fullResult.failures)")
        #expect(fullResult.elements.count == full.nameSpaces.flatMap(\.items).count)
    }

    @Test func issuerDataAuthenticationFailsForEachDefect() throws {
        let doc = try Self.response().documents[0]
        // Expired (MSO validUntil and document signer certificate).
        let later = IssuerDataAuthentication.verify(
            doc.issuerSigned, docType: Self.mDL, trustAnchors: [Self.iaca],
            at: RFC3339.date(from: "2026-01-01T00:00:00Z")!)
        #expect(!later.isValid)
        #expect(later.failures.contains { $0.contains("expired") })
        // No anchor.
        let untrusted = IssuerDataAuthentication.verify(
            doc.issuerSigned, docType: Self.mDL, trustAnchors: [], at: Self.inValidity)
        #expect(untrusted.failures.contains { $0.contains("not trusted") })
        // Wrong docType.
        let wrongType = IssuerDataAuthentication.verify(
            doc.issuerSigned, docType: "org.example.other", trustAnchors: [Self.iaca], at: Self.inValidity)
        #expect(wrongType.failures.contains { $0.contains("docType") })
        // One element's value changed: its digest no longer matches, the others still do.
        var tampered = doc.issuerSigned
        let item = tampered.nameSpaces[0].items[0]
        tampered.nameSpaces[0].items[0] = IssuerSignedItem(
            digestID: item.digestID, random: item.random, elementIdentifier: item.elementIdentifier,
            elementValue: "Mallory")
        let t = IssuerDataAuthentication.verify(
            tampered, docType: Self.mDL, trustAnchors: [Self.iaca], at: Self.inValidity)
        #expect(!t.isValid)
        #expect(t.elements.filter { !$0.digestMatches }.count == 1)
    }

    @Test func deviceAuthenticationBytesAndTheDeviceMacAreTheStandards() throws {
        let doc = try Self.response().documents[0]
        let payload = DeviceAuthentication.bytes(
            transcript: Self.transcript, docType: Self.mDL, nameSpacesBytes: doc.deviceSigned.nameSpacesBytes)
        #expect(payload == Vectors.annexD("DeviceAuthenticationBytes"))
        guard case .mac(let mac) = doc.deviceSigned.deviceAuth else {
            Issue.record("Annex D uses deviceMac")
            return
        }
        #expect(
            COSEMac0.macStructure(protected: mac.protected.bytes, payload: payload)
                == Vectors.annexD("DeviceAuth_MAC_structure"))
        // The holder's EMacKey: SDeviceKey with EReaderKey.
        let sDevice = try PrivateKey(curve: .p256, rawPrivateKey: Vectors.annexD("SDeviceKey_private_d"))
        let eReader = try PrivateKey(curve: .p256, rawPrivateKey: Vectors.annexD("EReaderKey_private_d"))
        #expect(try sDevice.sharedSecret(with: eReader.publicKey).bytes == Vectors.annexD("EMacKey_ZAB"))
        let holderKey = try DeviceAuthentication.eMacKey(
            privateKey: sDevice, peerKey: eReader.publicKey, transcript: Self.transcript)
        #expect(holderKey.bytes == Vectors.annexD("EMacKey"))
        // Producing the MAC gives the standard's deviceSigned byte for byte.
        let produced = DeviceAuthentication.mac(
            transcript: Self.transcript, docType: Self.mDL, nameSpacesBytes: doc.deviceSigned.nameSpacesBytes,
            eMacKey: holderKey)
        #expect(produced == doc.deviceSigned)
        #expect(mac.tag == Vectors.annexD("DeviceMac_tag"))
        // The reader derives the same key from its side and verifies.
        let mso = try doc.issuerSigned.mobileSecurityObject().mso
        let readerKey = try DeviceAuthentication.eMacKey(
            privateKey: eReader, peerKey: mso.deviceKey.publicKey(), transcript: Self.transcript)
        #expect(
            DeviceAuthentication.verify(
                doc.deviceSigned, docType: Self.mDL, transcript: Self.transcript, deviceKey: mso.deviceKey,
                eMacKey: readerKey)
                == nil)
        let other = SessionTranscript(handover: ["other"])
        #expect(
            DeviceAuthentication.verify(
                doc.deviceSigned, docType: Self.mDL, transcript: other, deviceKey: mso.deviceKey, eMacKey: readerKey)
                != nil)
    }

    @Test func deviceSignatureRoundTrips() throws {
        for (curve, alg) in [
            (Curve.p256, SignatureAlgorithm.es256), (.p384, .es384), (.p521, .es512), (.ed25519, .edDSA),
        ] {
            let key = try PrivateKey.generate(curve)
            let signed = try DeviceAuthentication.sign(
                transcript: Self.transcript, docType: Self.mDL, deviceKey: key, algorithm: alg)
            let coseKey = COSEKey(key.publicKey)
            #expect(
                DeviceAuthentication.verify(
                    signed, docType: Self.mDL, transcript: Self.transcript, deviceKey: coseKey, eMacKey: nil)
                    == nil)
            #expect(
                DeviceAuthentication.verify(
                    signed, docType: "other", transcript: Self.transcript, deviceKey: coseKey, eMacKey: nil)
                    != nil)
        }
    }

    @Test func selectiveDisclosureKeepsOnlyApprovedItemsAsIssued() throws {
        let issuerSigned = try IssuerSigned(bytes: Vectors.annexD("IssuerSigned"))
        let kept = issuerSigned.disclosing(["org.iso.18013.5.1": ["family_name", "portrait"]])
        #expect(kept.nameSpaces.count == 1)
        #expect(Set(kept.nameSpaces[0].items.map(\.elementIdentifier)) == ["family_name", "portrait"])
        for item in kept.nameSpaces[0].items {
            let original = issuerSigned.nameSpaces[0].items.first { $0.elementIdentifier == item.elementIdentifier }
            #expect(item.bytes.bytes == original?.bytes.bytes)
        }
        let r = IssuerDataAuthentication.verify(kept, docType: Self.mDL, trustAnchors: [Self.iaca], at: Self.inValidity)
        #expect(r.isValid, "\(r.failures)")
    }

    @Test func documentErrorsAndElementErrorsRoundTrip() throws {
        let doc = try Self.response().documents[0]
        var withErrors = doc
        withErrors.errors = [("org.iso.18013.5.1", "height", ErrorCode.dataNotReturned)]
        let response = DeviceResponse(
            documents: [withErrors], documentErrors: [("org.example.unknown", ErrorCode.dataNotReturned)])
        let back = try DeviceResponse(bytes: response.encoded)
        #expect(back.documentErrors.map(\.docType) == ["org.example.unknown"])
        #expect(back.documents[0].errors.map(\.element) == ["height"])
        #expect(back.encoded == response.encoded)
        let failed = DeviceResponse(documents: [], status: .cborDecodingError)
        #expect(try DeviceResponse(bytes: failed.encoded).status == 11)
    }
}
