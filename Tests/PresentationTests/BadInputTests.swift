import CBOR
import COSE
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import TestSupport
import Testing

/// Every bad input gets the standard's answer and the session ends cleanly.
struct BadInputTests {
    typealias D = AnnexDCredential

    static func statusOf(_ outputs: [HolderOutput]) -> UInt64? {
        for o in outputs {
            if case .send(let b) = o { return try? SessionData(bytes: b).status }
        }
        return nil
    }

    static func reason(_ outputs: [HolderOutput]) -> TerminationReason? {
        for o in outputs {
            if case .terminated(let r) = o { return r }
        }
        return nil
    }

    @Test func anUndecodableEstablishmentGetsStatus11() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        let out = x.holder.receive([0xA2, 0x01], at: D.time)
        #expect(Self.statusOf(out) == 11)
        guard case .decodingError = Self.reason(out) else {
            Issue.record("expected a decoding error")
            return
        }
        #expect(x.holder.isEnded)
    }

    @Test func aWellFormedButWrongEstablishmentGetsStatus11() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        let out = x.holder.receive((["eReaderKey": 1, "data": .bytes([1])] as CBOR).encoded(), at: D.time)
        #expect(Self.statusOf(out) == 11)
    }

    @Test func anUndecryptableRequestGetsStatus10() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        let good = try SessionEstablishment(bytes: try x.reader.establishment(requesting: [D.request(["family_name"])]))
        var data = good.data
        data[data.count - 1] ^= 0xFF
        let bad = SessionEstablishment(eReaderKey: good.eReaderKey, data: data)
        let out = x.holder.receive(bad.encoded, at: D.time)
        #expect(Self.statusOf(out) == 10)
        #expect(Self.reason(out) == .sessionEncryptionError)
    }

    @Test func aLaterUndecryptableMessageGetsStatus10() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        _ = try x.request([D.request(["family_name"])])
        let out = x.holder.receive(SessionData(data: [UInt8](repeating: 7, count: 40)).encoded, at: D.time)
        #expect(Self.statusOf(out) == 10)
    }

    @Test func anUndecodableSessionDataGetsStatus11() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        _ = try x.request([D.request(["family_name"])])
        let out = x.holder.receive([0xFF, 0x00], at: D.time)
        #expect(Self.statusOf(out) == 11)
    }

    @Test func aRequestThatIsNotADeviceRequestIsAnsweredWithStatus12AndEnds() throws {
        // Encrypted correctly, but the plaintext is a map without docRequests.
        let eDeviceKey = try PrivateKey.generate(.p256)
        let engagement = DeviceEngagement(eDeviceKey: eDeviceKey.publicKey, retrievalMethods: [])
        var holder = HolderSession(
            engagement: engagement, eDeviceKey: eDeviceKey, credentials: [try D.credential()], now: D.time)
        let readerKey = try PrivateKey.generate(.p256)
        let keyBytes = EmbeddedCBOR(COSEKey(readerKey.publicKey).cbor)
        let t = SessionTranscript(deviceEngagement: engagement, eReaderKeyBytes: keyBytes)
        var enc = try SessionEncryption(
            role: .reader, privateKey: readerKey, peerKey: eDeviceKey.publicKey, transcript: t)
        let message = SessionEstablishment(
            eReaderKey: COSEKey(readerKey.publicKey), data: try enc.encrypt((["version": "1.0"] as CBOR).encoded()))
        let out = holder.receive(message.encoded, at: D.time)
        guard case .send(let bytes) = out.first else {
            Issue.record("expected an answer")
            return
        }
        let sessionData = try SessionData(bytes: bytes)
        #expect(sessionData.status == 20)
        let response = try DeviceResponse(bytes: try enc.decrypt(try #require(sessionData.data)))
        #expect(response.status == 12)
        #expect(holder.isEnded)
    }

    @Test func aMessageOverTheLimitEndsTheSession() throws {
        var config = HolderConfiguration()
        config.maxMessageSize = 1000
        var x = try InMemoryExchange(
            credentials: [D.credential()], configuration: config, iacas: [D.iaca], time: D.time)
        let out = x.holder.receive([UInt8](repeating: 0, count: 1001), at: D.time)
        #expect(Self.statusOf(out) == 11)
        #expect(Self.reason(out) == .messageTooLarge(1001))
    }

    @Test func anIdleSessionEnds() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        #expect(x.holder.tick(at: D.time.addingTimeInterval(60)).isEmpty)
        let out = x.holder.tick(at: D.time.addingTimeInterval(121))
        #expect(Self.reason(out) == .idleTimeout)
        #expect(Self.statusOf(out) == nil)  // no session yet, so nothing to send
    }

    @Test func anUnansweredConsentIsADeclineAndEndsTheSession() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        let replies = x.deliver(try x.reader.establishment(requesting: [D.request(["family_name"])])) { _ in nil }
        #expect(replies.isEmpty)
        #expect(x.holder.state == .awaitingConsent)
        let out = x.holder.tick(at: D.time.addingTimeInterval(61))
        #expect(Self.reason(out) == .consentTimeout)
        guard case .send(let bytes) = out.first else {
            Issue.record("expected an answer")
            return
        }
        let event = try x.reader.receive(bytes, at: D.time)
        guard case .response(let r, _, let ended) = event else {
            Issue.record("expected a response")
            return
        }
        #expect(r.documents.isEmpty && r.documentErrors.count == 1)
        #expect(ended)
    }

    @Test func theReaderEndingDuringConsentEndsTheSessionWithoutData() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        _ = x.deliver(try x.reader.establishment(requesting: [D.request(["family_name"])])) { _ in nil }
        let out = x.holder.receive(x.reader.termination(), at: D.time)
        #expect(Self.reason(out) == .readerEnded)
        #expect(x.holder.consent(.approveAll(x.consentRequests[0]), at: D.time).isEmpty)
    }
}
