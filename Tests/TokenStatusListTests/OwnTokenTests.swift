import CBOR
import Foundation
import MdocCrypto
import MdocIssuer
import Testing
import Zlib

@testable import TokenStatusList

/// Tokens of our own, signed by a status list signer under a test IACA: the checks a status
/// from a token needs, and each way a token fails them.
struct OwnTokenTests {
    static let uri = "https://status.example.org/lists/7"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    struct Issuer {
        let pki: TestPKI
        let signer: StatusListSigner

        init() throws {
            pki = try TestPKI.generate(validity: .days(from: OwnTokenTests.now))
            signer = try StatusListSigner.issue(by: pki, now: OwnTokenTests.now)
        }

        func token(
            _ format: StatusListFormat, list: StatusList? = nil, subject: String = OwnTokenTests.uri,
            issuedAt: Date = OwnTokenTests.now, lifetime: TimeInterval? = 3600, ttl: UInt64? = 300,
            chain: [Certificate]? = nil
        ) throws -> [UInt8] {
            let list = try list ?? StatusList(bits: 2, count: 64, statuses: [3: 1, 5: 2, 9: 3])
            let expires = lifetime.map { issuedAt.addingTimeInterval($0) }
            switch format {
            case .cwt:
                return try StatusListToken.signCWT(
                    list, subject: subject, issuedAt: issuedAt, expiresAt: expires, timeToLive: ttl,
                    key: signer.key, chain: chain ?? [signer.certificate])
            case .jwt:
                return Array(
                    try StatusListToken.signJWT(
                        list, subject: subject, issuedAt: issuedAt, expiresAt: expires, timeToLive: ttl,
                        key: signer.key, chain: chain ?? [signer.certificate]
                    ).utf8)
            }
        }
    }

    @Test("a good token verifies against the IACA and gives every status", arguments: StatusListFormat.allCases)
    func good(_ format: StatusListFormat) throws {
        let issuer = try Issuer()
        let token = try StatusListToken(bytes: try issuer.token(format), format: format)
        let anchor = try token.verify(uri: Self.uri, trustAnchors: [issuer.pki.iaca], at: Self.now)
        #expect(anchor == issuer.pki.iaca)
        #expect(try token.statusList.status(at: 0) == .valid)
        #expect(try token.statusList.status(at: 3) == .invalid)
        #expect(try token.statusList.status(at: 5) == .suspended)
        #expect(try token.statusList.status(at: 9) == .other(3))
        #expect(CredentialStatus.other(3).isApplicationSpecific)
        #expect(token.cacheExpiry(fetchedAt: Self.now) == Self.now.addingTimeInterval(300))
        // The signer is not a document signer: no EKU at all.
        #expect(issuer.signer.certificate.extendedKeyUsage.isEmpty)
    }

    @Test("a token signed under another IACA is refused", arguments: StatusListFormat.allCases)
    func wrongSigner(_ format: StatusListFormat) throws {
        let issuer = try Issuer()
        let stranger = try Issuer()
        let token = try StatusListToken(bytes: try stranger.token(format), format: format)
        #expect {
            try token.verify(uri: Self.uri, trustAnchors: [issuer.pki.iaca], at: Self.now)
        } throws: { error in
            if case .untrustedSigner = error as? StatusListError { return true }
            return false
        }
    }

    @Test(
        "a signer certificate from one key over another key's signature is refused",
        arguments: StatusListFormat.allCases)
    func keyNotTheCertificates(_ format: StatusListFormat) throws {
        let issuer = try Issuer()
        let other = try Issuer()
        // Signed by `issuer`'s signer key, but carrying `other`'s certificate: chains to `other`'s IACA only.
        let bytes = try issuer.token(format, chain: [other.signer.certificate])
        let token = try StatusListToken(bytes: bytes, format: format)
        #expect {
            try token.verify(uri: Self.uri, trustAnchors: [other.pki.iaca], at: Self.now)
        } throws: { error in
            if case .badSignature = error as? StatusListError { return true }
            return false
        }
    }

    @Test("sub, iat and exp are checked", arguments: StatusListFormat.allCases)
    func claimsChecked(_ format: StatusListFormat) throws {
        let issuer = try Issuer()
        let anchors = [issuer.pki.iaca]
        let wrongSub = try StatusListToken(bytes: try issuer.token(format, subject: Self.uri + "x"), format: format)
        #expect(throws: StatusListError.subjectMismatch) {
            try wrongSub.verify(uri: Self.uri, trustAnchors: anchors, at: Self.now)
        }
        let expired = try StatusListToken(
            bytes: try issuer.token(format, issuedAt: Self.now.addingTimeInterval(-7200)), format: format)
        #expect(throws: StatusListError.expired) {
            try expired.verify(uri: Self.uri, trustAnchors: anchors, at: Self.now)
        }
        let future = try StatusListToken(
            bytes: try issuer.token(format, issuedAt: Self.now.addingTimeInterval(600)), format: format)
        #expect(throws: StatusListError.notYetValid) {
            try future.verify(uri: Self.uri, trustAnchors: anchors, at: Self.now)
        }
        // Without exp or ttl the token verifies, and is not to be cached.
        let open = try StatusListToken(bytes: try issuer.token(format, lifetime: nil, ttl: nil), format: format)
        try open.verify(uri: Self.uri, trustAnchors: anchors, at: Self.now)
        #expect(open.cacheExpiry(fetchedAt: Self.now) == nil)
    }

    @Test("a token without a signer certificate is refused", arguments: StatusListFormat.allCases)
    func noCertificate(_ format: StatusListFormat) throws {
        let issuer = try Issuer()
        let token = try StatusListToken(bytes: try issuer.token(format, chain: []), format: format)
        #expect(throws: StatusListError.noSignerCertificate) {
            try token.verify(uri: Self.uri, trustAnchors: [issuer.pki.iaca], at: Self.now)
        }
    }

    @Test("oversized tokens and deflate bombs are refused", arguments: StatusListFormat.allCases)
    func bounded(_ format: StatusListFormat) throws {
        let issuer = try Issuer()
        // 32 MiB of 0xff (every entry revoked) deflate to some 32 KiB: twice the default inflate cap.
        let bomb = try StatusList(bits: 8, bytes: [UInt8](repeating: 0xff, count: 32 << 20))
        let bytes = try issuer.token(format, list: bomb)
        #expect(bytes.count < 100_000)
        #expect(throws: StatusListError.list(.tooLarge(limit: 16 << 20))) {
            try StatusListToken(bytes: bytes, format: format)
        }
        let big = try issuer.token(format)
        #expect(throws: StatusListError.tokenTooLarge(limit: 256)) {
            try StatusListToken(bytes: big, format: format, limits: StatusListLimits(maximumTokenBytes: 256))
        }
    }

    @Test("a CWT must say it is a status list (typ 16) and carry its claims")
    func malformedCWT() throws {
        let issuer = try Issuer()
        let payload = CBOR.map([CBORMapEntry(2, .text(Self.uri)), CBORMapEntry(6, 1)]).encoded()
        let protected = CBOR.map([CBORMapEntry(1, -7)]).encoded()
        let signature = try issuer.signer.key.sign(
            CBOR.array(["Signature1", .bytes(protected), .bytes([]), .bytes(payload)]).encoded(), algorithm: .es256)
        let untyped = CBOR.array([.bytes(protected), .map([]), .bytes(payload), .bytes(signature)]).encoded()
        #expect(throws: StatusListError.self) { try StatusListToken(bytes: untyped, format: .cwt) }
        #expect(throws: StatusListError.self) { try StatusListToken(bytes: [0xd2, 0x84], format: .cwt) }
        #expect(throws: StatusListError.unsupportedBits(3)) { try StatusList(bits: 3, bytes: [0]) }
    }

    @Test("an MSO keeps its status reference through encoding and decoding")
    func msoStatus() throws {
        let issuer = try Issuer()
        let reference = StatusReference(index: 41, uri: Self.uri)
        let issued = try MdocIssuer.issue(
            docType: "org.example.test", nameSpaces: [("org.example", [("a", .text("b"))])],
            deviceKey: try PrivateKey.generate(.p256).publicKey, documentSignerKey: issuer.pki.documentSignerKey,
            documentSignerChain: [issuer.pki.documentSigner], validFrom: Self.now,
            validUntil: Self.now.addingTimeInterval(86_400), signed: Self.now, status: reference.cbor)
        let mso = try issued.mobileSecurityObject().mso
        #expect(try StatusReference(statusClaim: try #require(mso.status)) == reference)
        #expect(throws: StatusListError.self) { try StatusReference(statusClaim: CBOR.map([])) }
        #expect(throws: StatusListError.self) {
            try StatusReference(statusClaim: CBOR.map([CBORMapEntry("status_list", .map([CBORMapEntry("idx", -1)]))]))
        }
    }
}
