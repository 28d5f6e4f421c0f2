import CBOR
import COSE
import Foundation
import ISO18013
import MdocCrypto
import TestSupport
import Testing

/// DeviceRequest and reader authentication against Annex D (D.4.1.1, D.5.3).
struct DeviceRequestTests {
    static let transcript = try! SessionTranscript(bytes: Vectors.annexD("SessionTranscriptBytes"))
    static let readerRoot = try! Certificate(der: Vectors.annexD("ReaderRoot_certificate"))
    static func date(_ s: String) -> Date { RFC3339.date(from: s)! }

    @Test func readsAndReencodesTheAnnexDRequest() throws {
        let bytes = Vectors.annexD("DeviceRequest")
        let request = try DeviceRequest(bytes: bytes)
        #expect(request.version == "1.0")
        #expect(request.docRequests.count == 1)
        let doc = request.docRequests[0]
        #expect(doc.itemsRequestBytes.bytes == Vectors.annexD("ItemsRequest"))
        #expect(doc.itemsRequest.docType == "org.iso.18013.5.1.mDL")
        let ids = doc.itemsRequest.requestedElements.map(\.element.identifier)
        #expect(ids.contains("family_name") && ids.contains("portrait"))
        #expect(doc.readerAuth?.cbor.encoded() == Vectors.annexD("ReaderAuth_COSE_Sign1"))
        #expect(request.encoded == bytes)
    }

    @Test func readerAuthenticationBytesAreTheStandards() throws {
        let doc = try DeviceRequest(bytes: Vectors.annexD("DeviceRequest")).docRequests[0]
        let payload = ReaderAuthentication.bytes(transcript: Self.transcript, itemsRequestBytes: doc.itemsRequestBytes)
        #expect(payload == Vectors.annexD("ReaderAuthenticationBytes"))
        let auth = try #require(doc.readerAuth)
        #expect(
            COSESign1.sigStructure(protected: auth.protected.bytes, payload: payload)
                == Vectors.annexD("ReaderAuth_Sig_structure"))
    }

    @Test func theAnnexDReaderIsTrustedWhileItsCertificateIsValid() throws {
        let request = try DeviceRequest(bytes: Vectors.annexD("DeviceRequest"))
        let r = ReaderAuthentication.verify(
            docRequest: request.docRequests[0], in: request, transcript: Self.transcript,
            trustAnchors: [Self.readerRoot],
            at: Self.date("2022-06-01T00:00:00Z"))
        #expect(r.status == .trusted, "\(r.failure ?? "")")
        #expect(r.readerSubject?.contains("reader") == true)
        #expect(r.trustAnchor == Self.readerRoot)
    }

    @Test func theAnnexDReaderIsUntrustedOnceExpiredOrWithoutItsRoot() throws {
        let request = try DeviceRequest(bytes: Vectors.annexD("DeviceRequest"))
        let doc = request.docRequests[0]
        let expired = ReaderAuthentication.verify(
            docRequest: doc, in: request, transcript: Self.transcript, trustAnchors: [Self.readerRoot],
            at: Self.date("2025-01-01T00:00:00Z"))
        #expect(expired.status == .untrusted)
        #expect(expired.failure?.contains("expired") == true, "\(expired.failure ?? "")")
        let noRoot = ReaderAuthentication.verify(
            docRequest: doc, in: request, transcript: Self.transcript, trustAnchors: [],
            at: Self.date("2022-06-01T00:00:00Z"))
        #expect(noRoot.status == .untrusted)
        let iaca = try Certificate(der: Vectors.annexD("IACA_certificate"))
        let wrongRoot = ReaderAuthentication.verify(
            docRequest: doc, in: request, transcript: Self.transcript, trustAnchors: [iaca],
            at: Self.date("2022-06-01T00:00:00Z"))
        #expect(wrongRoot.status == .untrusted)
    }

    @Test func aSignatureOverOtherBytesIsInvalid() throws {
        let request = try DeviceRequest(bytes: Vectors.annexD("DeviceRequest"))
        let doc = request.docRequests[0]
        // Same signature, another transcript: the signature no longer verifies.
        let other = SessionTranscript(handover: ["other"])
        let r = ReaderAuthentication.verify(
            docRequest: doc, in: request, transcript: other, trustAnchors: [Self.readerRoot],
            at: Self.date("2022-06-01T00:00:00Z"))
        #expect(r.status == .invalid)
        let unsigned = DocRequest(itemsRequest: doc.itemsRequest)
        let absent = ReaderAuthentication.verify(
            docRequest: unsigned, in: DeviceRequest(docRequests: [unsigned]), transcript: Self.transcript,
            trustAnchors: [Self.readerRoot], at: Self.date("2022-06-01T00:00:00Z"))
        #expect(absent.status == .absent)
    }

    @Test func readerAuthAllCoversEveryDocRequest() throws {
        // Version 1.1: one signature over all ItemsRequestBytes and DeviceRequestInfoBytes.
        let readerKey = try PrivateKey.generate(.p256)
        let mdl = ItemsRequest(
            docType: "org.iso.18013.5.1.mDL", nameSpaces: [.init("org.iso.18013.5.1", [.init("family_name")])])
        let pid = ItemsRequest(
            docType: "eu.europa.ec.eudi.pid.1", nameSpaces: [.init("eu.europa.ec.eudi.pid.1", [.init("age_over_18")])])
        let info = EmbeddedCBOR(["useCases": [["mandatory": true, "documentSets": [[0, 1]]]]])
        let unsigned = DeviceRequest(
            docRequests: [DocRequest(itemsRequest: mdl), DocRequest(itemsRequest: pid)], version: "1.1",
            deviceRequestInfo: info)
        let t = SessionTranscript(handover: ["test"])
        let sig = try COSESign1.sign(
            payload: ReaderAuthenticationAll.bytes(
                sessionTranscript: t, itemsRequests: unsigned.docRequests.map(\.itemsRequestBytes),
                deviceRequestInfo: unsigned.deviceRequestInfo), detached: true, key: readerKey,
            algorithm: .es256, unprotected: .x5chain([Vectors.annexD("Reader_certificate")]))
        let signed = DeviceRequest(
            docRequests: unsigned.docRequests, version: "1.1", deviceRequestInfo: info, readerAuthAll: [sig])
        let parsed = try DeviceRequest(bytes: signed.encoded)
        #expect(parsed.readerAuthAll.count == 1)
        #expect(parsed.deviceRequestInfo?.bytes == info.bytes)
        // The certificate's key is not the signer's: the signature must not verify.
        let r = ReaderAuthenticationAll.verify(
            request: parsed, sessionTranscript: t, trustAnchors: [Self.readerRoot],
            at: Self.date("2022-06-01T00:00:00Z"))
        #expect(r.status == .invalid)
    }

    @Test func a10RequestIgnoresReaderAuthAllAndDeviceRequestInfo() throws {
        let doc: CBOR = ["itemsRequest": .embedded(EmbeddedCBOR(["docType": "d", "nameSpaces": ["n": ["e": false]]]))]
        // Not even read in "1.0": malformed members are no error there, and are one in "1.1".
        func request(_ version: CBOR) -> CBOR {
            [
                "version": version, "docRequests": [doc],
                "deviceRequestInfo": .embedded(EmbeddedCBOR(["useCases": []])), "readerAuthAll": 5,
            ]
        }
        let parsed = try DeviceRequest(bytes: request("1.0").encoded())
        #expect(parsed.readerAuthAll.isEmpty)
        #expect(parsed.deviceRequestInfo == nil)
        #expect(throws: ISO18013Error.self) { try DeviceRequest(bytes: request("1.1").encoded()) }
        // A "1.0" request built with a readerAuthAll: verifying it gives .absent, never a result.
        let key = try PrivateKey.generate(.p256)
        let t = SessionTranscript(handover: ["test"])
        let unsigned = DeviceRequest(docRequests: parsed.docRequests)
        let sig = try COSESign1.sign(
            payload: ReaderAuthenticationAll.bytes(
                sessionTranscript: t, itemsRequests: unsigned.docRequests.map(\.itemsRequestBytes),
                deviceRequestInfo: unsigned.deviceRequestInfo), detached: true, key: key,
            algorithm: .es256, unprotected: .x5chain([Vectors.annexD("Reader_certificate")]))
        let signed = DeviceRequest(docRequests: parsed.docRequests, readerAuthAll: [sig])
        let r = ReaderAuthenticationAll.verify(
            request: signed, sessionTranscript: t, trustAnchors: [Self.readerRoot],
            at: Self.date("2022-06-01T00:00:00Z"))
        #expect(r.status == .absent)
        let asV11 = DeviceRequest(docRequests: parsed.docRequests, version: "1.1", readerAuthAll: [sig])
        let r11 = ReaderAuthenticationAll.verify(
            request: asV11, sessionTranscript: t, trustAnchors: [Self.readerRoot], at: Self.date("2022-06-01T00:00:00Z")
        )
        #expect(r11.status == .invalid)
    }

    @Test func refusesMalformedRequests() {
        let cases: [CBOR] = [
            ["version": "1.0"], ["version": "1.0", "docRequests": []],
            ["version": "2.0", "docRequests": [["itemsRequest": 1]]],
            ["version": "1.0", "docRequests": [["itemsRequest": .bytes([0xA0])]]],
            ["version": "1.0", "docRequests": [["itemsRequest": .embedded(EmbeddedCBOR(["docType": 5]))]]],
        ]
        for c in cases {
            #expect(throws: ISO18013Error.self) { try DeviceRequest(bytes: c.encoded()) }
        }
        #expect(throws: ISO18013Error.self) { try DeviceRequest(bytes: [0xA1, 0x61]) }
    }

    /// The Annex D readerAuth with its ReaderAuthenticationBytes attached: before, any holder
    /// verified it over the attached bytes, whatever its own session; now it is invalid in
    /// every session, its own included.
    @Test func theAnnexDReaderAuthWithItsPayloadAttachedIsInvalidEverywhere() throws {
        let request = try DeviceRequest(bytes: Vectors.annexD("DeviceRequest"))
        let doc = request.docRequests[0]
        let auth = try #require(doc.readerAuth)
        let attached = try COSESign1(cbor: attaching(Vectors.annexD("ReaderAuthenticationBytes"), to: auth.cbor))
        let replayed = try DocRequest(itemsRequestBytes: doc.itemsRequestBytes, readerAuth: attached)
        for transcript in [SessionTranscript(handover: ["another session"]), Self.transcript] {
            let r = ReaderAuthentication.verify(
                docRequest: replayed, in: DeviceRequest(docRequests: [replayed]), transcript: transcript,
                trustAnchors: [Self.readerRoot], at: Self.date("2022-06-01T00:00:00Z"))
            #expect(r.status == .invalid)
            #expect(r.failure?.contains("attached") == true, "\(r.failure ?? "")")
        }
    }

    /// `NameSpaces = {+ ...}` and `DataElements = {+ ...}`: empty maps are refused as
    /// invalid structure (status 12), not read as a request for nothing.
    @Test func anItemsRequestWithEmptyMapsIsInvalid() {
        let cases: [CBOR] = [
            ["docType": "org.iso.18013.5.1.mDL", "nameSpaces": [:]],
            ["docType": "org.iso.18013.5.1.mDL", "nameSpaces": ["org.iso.18013.5.1": [:]]],
            [
                "docType": "org.iso.18013.5.1.mDL",
                "nameSpaces": ["org.iso.18013.5.1": ["family_name": true], "x": [:]],
            ],
        ]
        for c in cases {
            let request: CBOR = ["version": "1.0", "docRequests": [["itemsRequest": .embedded(EmbeddedCBOR(c))]]]
            #expect {
                try DeviceRequest(bytes: request.encoded())
            } throws: { error in
                guard case ISO18013Error.invalid(structure: "ItemsRequest", _) = error else { return false }
                return true
            }
        }
    }

    /// The work one DeviceRequest causes is bounded: at most
    /// ``DeviceRequest/maximumDocRequests`` DocRequests (each may bring a chain to verify) and
    /// ``ItemsRequest/maximumElements`` elements per document; one more is invalid structure
    /// (status 12) and the message says how many came.
    @Test func aRequestPastItsLimitsIsInvalidAndSaysWhy() throws {
        let items: CBOR = [
            "docType": "org.iso.18013.5.1.mDL", "nameSpaces": ["org.iso.18013.5.1": ["family_name": true]],
        ]
        let doc: CBOR = ["itemsRequest": .embedded(EmbeddedCBOR(items))]
        func request(_ docs: Int) -> [UInt8] {
            let value: CBOR = ["version": "1.0", "docRequests": .array(Array(repeating: doc, count: docs))]
            return value.encoded()
        }
        #expect(try DeviceRequest(bytes: request(DeviceRequest.maximumDocRequests)).docRequests.count == 64)
        #expect {
            try DeviceRequest(bytes: request(DeviceRequest.maximumDocRequests + 1))
        } throws: { error in
            guard case ISO18013Error.invalid(structure: "DeviceRequest", let reason) = error else { return false }
            return reason.contains("65 entries")
        }

        func elements(_ count: Int) -> [UInt8] {
            let names = (0..<count).map { CBORMapEntry(.text("element_\($0)"), .bool(false)) }
            let half = names.count / 2
            let items: CBOR = [
                "docType": "org.iso.18013.5.1.mDL",
                "nameSpaces": .map([
                    CBORMapEntry("a", .map(Array(names[..<half]))), CBORMapEntry("b", .map(Array(names[half...]))),
                ]),
            ]
            let value: CBOR = ["version": "1.0", "docRequests": [["itemsRequest": .embedded(EmbeddedCBOR(items))]]]
            return value.encoded()
        }
        let full = try DeviceRequest(bytes: elements(ItemsRequest.maximumElements))
        #expect(full.docRequests[0].itemsRequest.requestedElements.count == ItemsRequest.maximumElements)
        #expect {
            try DeviceRequest(bytes: elements(ItemsRequest.maximumElements + 1))
        } throws: { error in
            guard case ISO18013Error.invalid(structure: "ItemsRequest", let reason) = error else { return false }
            return reason.contains("more than 1024")
        }
    }

    /// A SessionEstablishment whose EReaderKey is not a usable COSE_Key is a session
    /// encryption error (status 10); one that is not a SessionEstablishment is not.
    @Test func anUnusableEReaderKeyIsASessionEncryptionError() throws {
        let key: CBOR = [1: 2, -1: 1, -2: .bytes([1]), -3: true]
        let message: CBOR = ["eReaderKey": .embedded(EmbeddedCBOR(key)), "data": .bytes([1])]
        #expect {
            try SessionEstablishment(bytes: message.encoded())
        } throws: { error in
            guard case ISO18013Error.sessionEncryption = error else { return false }
            return true
        }
        let notEmbedded: CBOR = ["eReaderKey": key, "data": .bytes([1])]
        #expect {
            try SessionEstablishment(bytes: notEmbedded.encoded())
        } throws: { error in
            guard case ISO18013Error.invalid = error else { return false }
            return true
        }
    }
}
