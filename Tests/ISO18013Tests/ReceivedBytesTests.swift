import CBOR
import COSE
import Foundation
import ISO18013
import MdocCrypto
import TestSupport
import Testing

/// Received `...Bytes` structures are hashed and signed over exactly as they arrived
/// (PROTOCOL.md "Bytes are sacred"), not over a re-encoding of their tag-24 headers.
struct ReceivedBytesTests {
    /// `item` sent with a 2-byte byte-string length (`d8 18 59 llll ...`).
    static func longLength(_ item: EmbeddedCBOR) -> [UInt8] {
        let n = item.bytes.count
        return [0xD8, 0x18, 0x59, UInt8(n >> 8), UInt8(n & 0xFF)] + item.bytes
    }

    /// `item` sent with a 3-byte tag head (`d9 00 18`) and a 2-byte byte-string length.
    static func longTag(_ item: EmbeddedCBOR) -> [UInt8] { [0xD9, 0x00] + longLength(item).dropFirst() }

    static func received(_ wire: [UInt8]) throws -> EmbeddedCBOR { try #require(try CBOR.decode(wire).embeddedValue) }

    static let transcript = DeviceResponseTests.transcript
    static let mDL = DeviceResponseTests.mDL

    @Test func anIssuerSignedItemResentWithALongerHeaderFailsItsDigest() throws {
        var issuerSigned = try DeviceResponseTests.response().documents[0].issuerSigned
        let original = issuerSigned.nameSpaces[0].items[0]
        let wire = Self.longLength(original.bytes)
        let resent = try IssuerSignedItem(bytes: Self.received(wire))
        #expect(resent.bytes.taggedEncoding == wire)
        issuerSigned.nameSpaces[0].items[0] = resent
        let r = IssuerDataAuthentication.verify(
            issuerSigned, docType: Self.mDL, trustAnchors: [DeviceResponseTests.iaca],
            at: DeviceResponseTests.inValidity)
        #expect(!r.isValid)
        #expect(r.elements.map(\.digestMatches) == [false] + Array(repeating: true, count: r.elements.count - 1))
        // Forwarded as received: the holder sends on the exact bytes it was given.
        let forwarded = try IssuerSigned(bytes: issuerSigned.cbor.encoded())
        #expect(forwarded.nameSpaces[0].items[0].bytes.taggedEncoding == wire)
    }

    /// An IssuerSigned with one item sent as `wire`, whose MSO digest is over `digested`.
    static func issued(_ wire: [UInt8], digested: [UInt8], by signer: ReceivedBytesSigner) throws -> IssuerSigned {
        let item = try IssuerSignedItem(bytes: received(wire))
        let validity = MobileSecurityObject.ValidityInfo(
            signed: ReceivedBytesSigner.now, validFrom: ReceivedBytesSigner.now.addingTimeInterval(-60),
            validUntil: ReceivedBytesSigner.now.addingTimeInterval(60))
        let mso = MobileSecurityObject(
            digestAlgorithm: "SHA-256", valueDigests: ["org.iso.18013.5.1": [item.digestID: Digest.sha256(digested)]],
            deviceKey: COSEKey(signer.key.publicKey), docType: mDL, validityInfo: validity)
        let issuerAuth = try COSESign1.sign(
            payload: EmbeddedCBOR(mso.cbor).taggedEncoding, detached: false, key: signer.key,
            algorithm: signer.algorithm, unprotected: .x5chain([signer.leaf.der]))
        let built = IssuerSigned(nameSpaces: [.init("org.iso.18013.5.1", [item])], issuerAuth: issuerAuth)
        // What the reader parses: the encoding sent, item bytes as they are.
        return try IssuerSigned(bytes: built.cbor.encoded())
    }

    @Test(arguments: [longLength, longTag] as [@Sendable (EmbeddedCBOR) -> [UInt8]])
    func anIssuerWithALongerHeaderIsVerifiedOverTheBytesItSent(header: @Sendable (EmbeddedCBOR) -> [UInt8]) throws {
        let signer = try ReceivedBytesSigner(eku: IssuerDataAuthentication.documentSignerEKU)
        let item = IssuerSignedItem(
            digestID: 7, random: [UInt8](repeating: 0x5A, count: 16), elementIdentifier: "family_name",
            elementValue: "Doe")
        let wire = header(item.bytes)
        #expect(wire != item.bytes.taggedEncoding)
        let asSent = try Self.issued(wire, digested: wire, by: signer)
        #expect(asSent.nameSpaces[0].items[0].bytes.taggedEncoding == wire)
        let ok = IssuerDataAuthentication.verify(
            asSent, docType: Self.mDL, trustAnchors: [signer.root], at: ReceivedBytesSigner.now)
        #expect(ok.isValid, "\(ok.failures)")
        #expect(ok.elements.map(\.digestMatches) == [true])
        // The same item digested over its preferred re-encoding is not what was sent.
        let reencoded = try Self.issued(wire, digested: item.bytes.taggedEncoding, by: signer)
        let bad = IssuerDataAuthentication.verify(
            reencoded, docType: Self.mDL, trustAnchors: [signer.root], at: ReceivedBytesSigner.now)
        #expect(bad.failures == ["org.iso.18013.5.1:family_name does not match its digest in the MSO"])
    }

    @Test func readerAuthenticationCoversTheItemsRequestBytesAsSent() throws {
        let doc = try DeviceRequest(bytes: Vectors.annexD("DeviceRequest")).docRequests[0]
        let wire = Self.longTag(doc.itemsRequestBytes)
        let sent = try Self.received(wire)
        let payload = ReaderAuthentication.bytes(transcript: Self.transcript, itemsRequestBytes: sent)
        let expected = CBOR.taggedBytes(
            CBOR.encodedArray([CBOR.text("ReaderAuthentication").encoded(), Self.transcript.encoded, wire]))
        #expect(payload == expected)
        #expect(
            payload != ReaderAuthentication.bytes(transcript: Self.transcript, itemsRequestBytes: doc.itemsRequestBytes)
        )
    }

    /// A DeviceRequest with one DocRequest sending `itemsRequest`, readerAuth signed over `signed`.
    static func request(
        sending itemsRequest: EmbeddedCBOR, signedOver signed: EmbeddedCBOR, by signer: ReceivedBytesSigner
    )
        throws -> DeviceRequest
    {
        let auth = try ReaderAuthentication.sign(
            transcript: transcript, itemsRequestBytes: signed, key: signer.key, algorithm: signer.algorithm,
            certificateChain: [signer.leaf])
        let built = DeviceRequest(docRequests: [try DocRequest(itemsRequestBytes: itemsRequest, readerAuth: auth)])
        return try DeviceRequest(bytes: built.encoded)
    }

    @Test func aReaderThatSignedTheLongerHeaderItSentIsAuthenticated() throws {
        let signer = try ReceivedBytesSigner(eku: ReaderAuthentication.readerAuthEKU)
        let itemsRequest = try DeviceRequest(bytes: Vectors.annexD("DeviceRequest")).docRequests[0].itemsRequestBytes
        let sent = try Self.received(Self.longLength(itemsRequest))
        let request = try Self.request(sending: sent, signedOver: sent, by: signer)
        #expect(request.docRequests[0].itemsRequestBytes.taggedEncoding == Self.longLength(itemsRequest))
        let r = ReaderAuthentication.verify(
            docRequest: request.docRequests[0], in: request, transcript: Self.transcript, trustAnchors: [signer.root],
            at: ReceivedBytesSigner.now)
        #expect(r.status == .trusted, "\(r.failure ?? "")")
        // Signed over the preferred encoding, sent with the longer header: not what was signed.
        let mismatched = try Self.request(sending: sent, signedOver: EmbeddedCBOR(bytes: sent.bytes), by: signer)
        let bad = ReaderAuthentication.verify(
            docRequest: mismatched.docRequests[0], in: mismatched, transcript: Self.transcript,
            trustAnchors: [signer.root], at: ReceivedBytesSigner.now)
        #expect(bad.status == .invalid)
    }

    @Test func readerAuthAllCoversTheDeviceRequestInfoBytesAsSent() throws {
        let signer = try ReceivedBytesSigner(eku: ReaderAuthentication.readerAuthEKU)
        let itemsRequest = try DeviceRequest(bytes: Vectors.annexD("DeviceRequest")).docRequests[0].itemsRequestBytes
        let infoWire = Self.longTag(EmbeddedCBOR(.map([])))
        let info = try Self.received(infoWire)
        let unsigned = DeviceRequest(
            docRequests: [DocRequest(itemsRequest: try ItemsRequest(cbor: itemsRequest.value))], version: "1.1",
            deviceRequestInfo: info)
        let signed = try ReaderAuthenticationAll.signed(
            unsigned, sessionTranscript: Self.transcript, key: signer.key, chain: [signer.leaf])
        let request = try DeviceRequest(bytes: signed.encoded)
        #expect(request.deviceRequestInfo?.taggedEncoding == infoWire)
        let r = ReaderAuthenticationAll.verify(
            request: request, sessionTranscript: Self.transcript, trustAnchors: [signer.root],
            at: ReceivedBytesSigner.now)
        #expect(r.status == .trusted, "\(r.failure ?? "")")
        // Signed over the preferred DeviceRequestInfoBytes, sent with the longer header.
        let overPreferred = try ReaderAuthenticationAll.sign(
            sessionTranscript: Self.transcript, itemsRequests: request.docRequests.map(\.itemsRequestBytes),
            deviceRequestInfo: EmbeddedCBOR(bytes: info.bytes), key: signer.key, chain: [signer.leaf])
        let mismatched = DeviceRequest(
            docRequests: request.docRequests, version: "1.1", deviceRequestInfo: info, readerAuthAll: [overPreferred])
        let bad = ReaderAuthenticationAll.verify(
            request: try DeviceRequest(bytes: mismatched.encoded), sessionTranscript: Self.transcript,
            trustAnchors: [signer.root], at: ReceivedBytesSigner.now)
        #expect(bad.status == .invalid)
    }

    @Test func deviceAuthenticationCoversTheDeviceNameSpacesBytesAsSent() throws {
        let empty = DeviceAuthentication.emptyNameSpaces
        let wire = Self.longLength(empty)
        let sent = try Self.received(wire)
        #expect(sent.value == empty.value)
        let payload = DeviceAuthentication.bytes(transcript: Self.transcript, docType: Self.mDL, nameSpacesBytes: sent)
        let expected = CBOR.taggedBytes(
            CBOR.encodedArray([
                CBOR.text("DeviceAuthentication").encoded(), Self.transcript.encoded, CBOR.text(Self.mDL).encoded(),
                wire,
            ]))
        #expect(payload == expected)
        let key = try PrivateKey.generate(.p256)
        let algorithm = try #require(Curve.p256.preferredSignatureAlgorithm)
        let asSent = try DeviceAuthentication.sign(
            transcript: Self.transcript, docType: Self.mDL, nameSpacesBytes: sent, deviceKey: key, algorithm: algorithm)
        let deviceKey = COSEKey(key.publicKey)
        #expect(
            DeviceAuthentication.verify(
                asSent, docType: Self.mDL, transcript: Self.transcript, deviceKey: deviceKey, eMacKey: nil) == nil)
        // Signed over the preferred DeviceNameSpacesBytes, sent with the longer header.
        let overPreferred = try DeviceAuthentication.sign(
            transcript: Self.transcript, docType: Self.mDL, deviceKey: key, algorithm: algorithm)
        let mismatched = DeviceSigned(nameSpacesBytes: sent, deviceAuth: overPreferred.deviceAuth)
        #expect(
            DeviceAuthentication.verify(
                mismatched, docType: Self.mDL, transcript: Self.transcript, deviceKey: deviceKey, eMacKey: nil)
                == "deviceSignature does not verify with the MSO device key")
    }
}
