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

    // MARK: - Status codes TS 18013-6 expects

    /// A SessionEstablishment whose EReaderKeyBytes hold `key` (any CBOR), with junk data.
    static func establishment(readerKey key: CBOR) -> [UInt8] {
        CBOR.map([CBORMapEntry("eReaderKey", .embedded(EmbeddedCBOR(key))), CBORMapEntry("data", .bytes([1, 2, 3]))])
            .encoded()
    }

    /// An EReaderKey that cannot be used for this session's key agreement gets SessionData
    /// status 10 (session encryption), not 11: the message itself is well-formed.
    @Test func anUnusableEReaderKeyGetsStatus10() throws {
        let p256 = COSEKey(try PrivateKey.generate(.p256).publicKey)
        let p384 = COSEKey(try PrivateKey.generate(.p384).publicKey)
        let x = CBOR.bytes(p256.x)
        let y = CBOR.bytes(p256.y!)
        let keys: [(String, CBOR)] = [
            ("a P-384 key for a P-256 engagement", p384.cbor),
            ("no kty", [-1: 1, -2: x, -3: y] as CBOR),
            ("kty OKP with crv P-256", [1: 1, -1: 1, -2: x, -3: y] as CBOR),
            ("kty 99", [1: 99, -1: 1, -2: x, -3: y] as CBOR),
            ("no crv", [1: 2, -2: x, -3: y] as CBOR),
            ("an unknown crv", [1: 2, -1: 77, -2: x, -3: y] as CBOR),
            ("crv as text", [1: 2, -1: "P-256", -2: x, -3: y] as CBOR),
            ("y as a compression bit", [1: 2, -1: 1, -2: x, -3: true] as CBOR),
            ("y as an integer", [1: 2, -1: 1, -2: x, -3: 7] as CBOR),
            ("a point not on the curve", [1: 2, -1: 1, -2: x, -3: .bytes([UInt8](repeating: 1, count: 32))] as CBOR),
            ("not a map", .array([1, 2])),
        ]
        for (name, key) in keys {
            var exchange = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
            let out = exchange.holder.receive(Self.establishment(readerKey: key), at: D.time)
            #expect(Self.statusOf(out) == 10, "\(name)")
            #expect(Self.reason(out) == .sessionEncryptionError, "\(name)")
            #expect(exchange.holder.isEnded, "\(name)")
        }
    }

    /// The reply to a DeviceRequest whose only document asks for `nameSpaces`.
    static func response(toNameSpaces nameSpaces: [ItemsRequest.NameSpace]) throws -> (DeviceResponse, HolderSession) {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        let request = DeviceRequest(docRequests: [
            DocRequest(itemsRequest: ItemsRequest(docType: D.mDL, nameSpaces: nameSpaces))
        ])
        let replies = x.deliver(try x.reader.establishment(for: request)) { .approveAll($0) }
        #expect(x.consentRequests.isEmpty)
        let reply = try #require(replies.first)
        guard case .response(let verified, let raw, let ended) = try x.reader.receive(reply, at: D.time) else {
            throw NoResponse()
        }
        #expect(ended)
        #expect(verified.documents.isEmpty)
        return (try DeviceResponse(bytes: raw), x.holder)
    }

    struct NoResponse: Error {}

    /// `NameSpaces = {+ ...}`: an empty nameSpaces map breaks the CDDL, so DeviceResponse
    /// status 12 with no documents (not status 0 with documentErrors), and the session ends.
    @Test func anEmptyNameSpacesMapGetsStatus12AndNoDocuments() throws {
        let (response, holder) = try Self.response(toNameSpaces: [])
        #expect(response.status == 12)
        #expect(response.documents.isEmpty && response.documentErrors.isEmpty)
        #expect(holder.isEnded)
    }

    /// `DataElements = {+ ...}`: a namespace with no data elements gets status 12 too.
    @Test func aNameSpaceWithoutDataElementsGetsStatus12AndNoDocuments() throws {
        let (response, holder) = try Self.response(toNameSpaces: [.init(D.ns, [])])
        #expect(response.status == 12)
        #expect(response.documents.isEmpty && response.documentErrors.isEmpty)
        #expect(holder.isEnded)
        let (mixed, _) = try Self.response(toNameSpaces: [
            .init(D.ns, [.init("family_name")]), .init("org.example", []),
        ])
        #expect(mixed.status == 12 && mixed.documents.isEmpty)
    }
}
