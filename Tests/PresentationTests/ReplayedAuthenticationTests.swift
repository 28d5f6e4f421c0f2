import CBOR
import COSE
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import TestSupport
import Testing

/// Authentication is checked over the bytes of THIS session only: a readerAuth,
/// deviceSignature or deviceMac recorded in another session and sent with that session's
/// bytes attached is refused (ISO 18013-5 sends all three detached; TS 18013-6 tests it).
struct ReplayedAuthenticationTests {
    typealias I = IssuedCredentials

    static let items = ItemsRequest(
        docType: I.mDL, nameSpaces: [.init(I.ns, [.init("family_name"), .init("age_over_18")])])

    /// Another session of a holder with the same engagement (a different EReaderKey).
    static func otherTranscript(of engagement: DeviceEngagement) throws -> SessionTranscript {
        let otherReaderKey = try PrivateKey.generate(.p256)
        return SessionTranscript(
            deviceEngagement: engagement,
            eReaderKeyBytes: EmbeddedCBOR(COSEKey(otherReaderKey.publicKey).cbor), handover: .null)
    }

    // MARK: - Holder side: readerAuth

    /// A trusted reader's readerAuth recorded in session A, with A's
    /// ReaderAuthenticationBytes attached, sent in session B: the holder sees an invalid
    /// reader and, under a trusted-readers-only policy, releases nothing and asks nobody.
    @Test func aReaderAuthReplayedWithItsPayloadAttachedMakesTheReaderInvalidAndReleasesNothing() throws {
        let issued = try I()
        var config = HolderConfiguration(readerTrustAnchors: [issued.pki.readerCA], untrustedReaders: .refuse)
        config.deviceAuth = .signature
        var x = try InMemoryExchange(
            credentials: [issued.issue()], configuration: config, iacas: [issued.pki.iaca], time: issued.now)
        let docRequest = DocRequest(itemsRequest: Self.items)
        // Recorded in session A: valid, by the trusted reader key, over A's bytes.
        let sessionA = try Self.otherTranscript(of: x.reader.engagement)
        let bytesA = ReaderAuthentication.bytes(transcript: sessionA, itemsRequestBytes: docRequest.itemsRequestBytes)
        let recorded = try ReaderAuthentication.sign(
            transcript: sessionA, itemsRequestBytes: docRequest.itemsRequestBytes, key: issued.pki.readerKey,
            algorithm: .es256, certificateChain: [issued.pki.reader])
        let check = ReaderAuthentication.verify(
            recorded, payloads: [bytesA], trustAnchors: [issued.pki.readerCA], at: issued.now)
        #expect(check.status == .trusted, "the recorded readerAuth is genuine for session A")

        let replayed = try COSESign1(cbor: attaching(bytesA, to: recorded.cbor))
        let request = DeviceRequest(docRequests: [
            try DocRequest(itemsRequestBytes: docRequest.itemsRequestBytes, readerAuth: replayed)
        ])
        var event: ReaderEvent?
        for reply in x.deliver(try x.reader.establishment(for: request), decide: { .approveAll($0) }) {
            event = try x.reader.receive(reply, at: issued.now)
        }
        let response = try #require(event?.verified)
        #expect(x.consentRequests.isEmpty)
        #expect(response.documents.isEmpty)
        #expect(response.documentErrors.map(\.docType) == [I.mDL])
        let record = try #require(x.records.first)
        guard case .invalid(let reason) = record.requester.authentication else {
            Issue.record("expected an invalid reader, got \(record.requester.authentication)")
            return
        }
        #expect(reason.contains("attached"), "\(reason)")
    }

    /// Even when the reader lets the user decide about untrusted readers, the replayed
    /// readerAuth is shown as invalid, not as the trusted reader it copies.
    @Test func aReplayedReaderAuthIsNeverShownAsTheTrustedReader() throws {
        let issued = try I()
        let config = HolderConfiguration(readerTrustAnchors: [issued.pki.readerCA], untrustedReaders: .ask)
        var x = try InMemoryExchange(
            credentials: [issued.issue()], configuration: config, iacas: [issued.pki.iaca], time: issued.now)
        let docRequest = DocRequest(itemsRequest: Self.items)
        let sessionA = try Self.otherTranscript(of: x.reader.engagement)
        let recorded = try ReaderAuthentication.sign(
            transcript: sessionA, itemsRequestBytes: docRequest.itemsRequestBytes, key: issued.pki.readerKey,
            algorithm: .es256, certificateChain: [issued.pki.reader])
        let bytesA = ReaderAuthentication.bytes(transcript: sessionA, itemsRequestBytes: docRequest.itemsRequestBytes)
        let replayed = try COSESign1(cbor: attaching(bytesA, to: recorded.cbor))
        let request = DeviceRequest(docRequests: [
            try DocRequest(itemsRequestBytes: docRequest.itemsRequestBytes, readerAuth: replayed)
        ])
        _ = x.deliver(try x.reader.establishment(for: request)) { _ in .decline }
        let asked = try #require(x.consentRequests.first)
        guard case .invalid = asked.requester.authentication else {
            Issue.record("expected an invalid reader, got \(asked.requester.authentication)")
            return
        }
        #expect(asked.warning != nil)
    }

    /// A readerAuth whose `alg` is only in the unprotected header is invalid, although the
    /// signature itself is correct for this session's bytes.
    @Test func aReaderAuthWithItsAlgorithmOnlyInTheUnprotectedHeaderIsInvalid() throws {
        let issued = try I()
        let config = HolderConfiguration(readerTrustAnchors: [issued.pki.readerCA], untrustedReaders: .refuse)
        var x = try InMemoryExchange(
            credentials: [issued.issue()], configuration: config, iacas: [issued.pki.iaca], time: issued.now)
        let docRequest = DocRequest(itemsRequest: Self.items)
        let payload = ReaderAuthentication.bytes(
            transcript: x.reader.transcript, itemsRequestBytes: docRequest.itemsRequestBytes)
        let signature = try issued.pki.readerKey.sign(
            COSESign1.sigStructure(protected: [], payload: payload), algorithm: .es256)
        let readerAuth = try COSESign1(
            cbor: [
                .bytes([]), .map([CBORMapEntry(1, -7)] + .x5chain([issued.pki.reader.der])), .null,
                .bytes(signature),
            ])
        let request = DeviceRequest(docRequests: [
            try DocRequest(itemsRequestBytes: docRequest.itemsRequestBytes, readerAuth: readerAuth)
        ])
        _ = x.deliver(try x.reader.establishment(for: request)) { .approveAll($0) }
        #expect(x.consentRequests.isEmpty)
        let record = try #require(x.records.first)
        guard case .invalid(let reason) = record.requester.authentication else {
            Issue.record("expected an invalid reader, got \(record.requester.authentication)")
            return
        }
        #expect(reason.contains("protected header"), "\(reason)")
    }

    // MARK: - Reader side: deviceSignature and deviceMac

    /// A whole presentation in session A, returning the reader's transcript and the
    /// plaintext DeviceResponse.
    static func presentation(
        _ issued: I, deviceAuth: DeviceAuthMode
    ) throws -> (x: InMemoryExchange, response: [UInt8]) {
        var config = HolderConfiguration(readerTrustAnchors: [issued.pki.readerCA], untrustedReaders: .allow)
        config.deviceAuth = deviceAuth
        var x = try InMemoryExchange(
            credentials: [issued.issue()], configuration: config, iacas: [issued.pki.iaca], time: issued.now)
        guard case .response(let verified, let raw, _) = try #require(try x.request([Self.items])) else {
            throw NoResponse()
        }
        #expect(verified.isValid, "session A itself verifies: \(verified.documents.flatMap(\.failures))")
        return (x, raw)
    }

    struct NoResponse: Error {}

    /// The DeviceResponse with the first document's deviceAuth carrying `payload` attached.
    static func withAttachedDeviceAuth(_ response: [UInt8], payload: (Document) -> [UInt8]) throws -> [UInt8] {
        var parsed = try DeviceResponse(bytes: response)
        var doc = parsed.documents[0]
        let attached: DeviceAuth
        switch doc.deviceSigned.deviceAuth {
        case .signature(let sig): attached = .signature(try COSESign1(cbor: attaching(payload(doc), to: sig.cbor)))
        case .mac(let mac): attached = .mac(try COSEMac0(cbor: attaching(payload(doc), to: mac.cbor)))
        }
        doc.deviceSigned = DeviceSigned(nameSpacesBytes: doc.deviceSigned.nameSpacesBytes, deviceAuth: attached)
        parsed.documents[0] = doc
        return parsed.encoded
    }

    /// A deviceSignature recorded in session A, with A's DeviceAuthenticationBytes attached,
    /// does not authenticate the mdoc in session B (a cloned response).
    @Test func aDeviceSignatureReplayedWithItsPayloadAttachedIsRefusedInAnotherSession() throws {
        let issued = try I()
        let (a, response) = try Self.presentation(issued, deviceAuth: .signature)
        let transcriptA = a.reader.transcript
        let replayed = try Self.withAttachedDeviceAuth(response) { doc in
            DeviceAuthentication.bytes(
                transcript: transcriptA, docType: doc.docType, nameSpacesBytes: doc.deviceSigned.nameSpacesBytes)
        }
        let transcriptB = try Self.otherTranscript(of: a.reader.engagement)
        let detachedInB = try ResponseVerifier.verify(
            response, transcript: transcriptB, trustAnchors: [issued.pki.iaca], eReaderKey: nil, at: issued.now)
        #expect(!detachedInB.isValid, "control: detached, A's signature does not pass for B")
        let verified = try ResponseVerifier.verify(
            replayed, transcript: transcriptB, trustAnchors: [issued.pki.iaca], eReaderKey: nil, at: issued.now)
        #expect(!verified.isValid)
        #expect(verified.documents[0].issuer.isValid, "only device authentication fails")
        let failure = try #require(verified.documents[0].deviceAuthFailure)
        #expect(failure.contains("attached"), "\(failure)")
        // Detached means detached: refused even in the session it was made for.
        let inA = try ResponseVerifier.verify(
            replayed, transcript: transcriptA, trustAnchors: [issued.pki.iaca], eReaderKey: nil, at: issued.now)
        #expect(!inA.isValid)
    }

    /// The same for deviceMac: a tag that arrives with its payload attached is refused.
    @Test func aDeviceMacWithItsPayloadAttachedIsRefused() throws {
        let issued = try I()
        let (a, response) = try Self.presentation(issued, deviceAuth: .mac)
        let transcriptA = a.reader.transcript
        let attached = try Self.withAttachedDeviceAuth(response) { doc in
            DeviceAuthentication.bytes(
                transcript: transcriptA, docType: doc.docType, nameSpacesBytes: doc.deviceSigned.nameSpacesBytes)
        }
        let control = try ResponseVerifier.verify(
            response, transcript: transcriptA, trustAnchors: [issued.pki.iaca], eReaderKey: a.reader.eReaderKey,
            at: issued.now)
        #expect(control.isValid && control.documents[0].deviceAuthKind == "deviceMac")
        let verified = try ResponseVerifier.verify(
            attached, transcript: transcriptA, trustAnchors: [issued.pki.iaca], eReaderKey: a.reader.eReaderKey,
            at: issued.now)
        #expect(!verified.isValid)
        let failure = try #require(verified.documents[0].deviceAuthFailure)
        #expect(failure.contains("attached"), "\(failure)")
    }

    /// A deviceSignature whose `alg` is only in the unprotected header is refused.
    @Test func aDeviceSignatureWithItsAlgorithmOnlyInTheUnprotectedHeaderIsRefused() throws {
        let issued = try I()
        let key = try PrivateKey.generate(.p256)
        let credential = try issued.issue(deviceKey: key)
        let transcript = try Self.otherTranscript(
            of: DeviceEngagement(eDeviceKey: try PrivateKey.generate(.p256).publicKey, retrievalMethods: []))
        let nameSpaces = DeviceAuthentication.emptyNameSpaces
        let payload = DeviceAuthentication.bytes(
            transcript: transcript, docType: credential.docType, nameSpacesBytes: nameSpaces)
        let signature = try key.sign(COSESign1.sigStructure(protected: [], payload: payload), algorithm: .es256)
        let sign1 = try COSESign1(cbor: [.bytes([]), .map([CBORMapEntry(1, -7)]), .null, .bytes(signature)])
        let response = DeviceResponse(documents: [
            Document(
                docType: credential.docType, issuerSigned: credential.issuerSigned,
                deviceSigned: DeviceSigned(nameSpacesBytes: nameSpaces, deviceAuth: .signature(sign1)))
        ])
        let verified = try ResponseVerifier.verify(
            response.encoded, transcript: transcript, trustAnchors: [issued.pki.iaca], eReaderKey: nil,
            at: issued.now)
        #expect(verified.documents[0].issuer.isValid)
        let failure = try #require(verified.documents[0].deviceAuthFailure)
        #expect(failure.contains("protected header"), "\(failure)")
    }
}
