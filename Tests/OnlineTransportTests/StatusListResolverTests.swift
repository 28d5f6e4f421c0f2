import Foundation
import MdocCrypto
import MdocIssuer
import OnlineTransport
import Testing
import TokenStatusList

/// The status list resolver over real HTTPS on loopback: fetch, verify, read; the cache; the
/// bounds of a fetch; every failure ends as `unknown` with a reason.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct StatusListResolverTests {
    /// A clock the test moves.
    final class TestClock: @unchecked Sendable {
        private let lock = NSLock()
        private var current = Date()
        var now: Date { lock.withLock { current } }
        func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
    }

    struct Issuer {
        let pki: TestPKI
        let signer: StatusListSigner

        init() throws {
            pki = try TestPKI.generate()
            signer = try StatusListSigner.issue(by: pki)
        }

        func cwt(
            subject: String, statuses: [UInt64: UInt8] = [3: 1, 4: 2], ttl: UInt64? = 300, list: StatusList? = nil
        ) throws -> [UInt8] {
            try StatusListToken.signCWT(
                list ?? StatusList(bits: 2, count: 16, statuses: statuses), subject: subject, issuedAt: Date(),
                expiresAt: Date().addingTimeInterval(3600), timeToLive: ttl, key: signer.key,
                chain: [signer.certificate])
        }

        func jwt(subject: String) throws -> [UInt8] {
            Array(
                try StatusListToken.signJWT(
                    StatusList(bits: 1, count: 16, statuses: [2: 1]), subject: subject, issuedAt: Date(),
                    expiresAt: Date().addingTimeInterval(3600), timeToLive: 300, key: signer.key,
                    chain: [signer.certificate]
                ).utf8)
        }
    }

    static func unknownReason(_ check: StatusCheck) -> String? {
        guard case .unknown(let reason) = check else { return nil }
        return reason
    }

    @Test("a fetched CWT and JWT give each status; a second check within the ttl makes no request")
    func fetchAndCache() async throws {
        let issuer = try Issuer()
        try await StatusListServer.with { server in
            let cwtURI = server.base + "/list.cwt"
            try server.serve(try issuer.cwt(subject: cwtURI), as: "list.cwt")
            let jwtURI = server.base + "/list.jwt"
            try server.serve(try issuer.jwt(subject: jwtURI), as: "list.jwt")
            let clock = TestClock()
            let resolver = try StatusListResolver(tlsCAs: [server.ca], clock: { clock.now })
            let anchors = [issuer.pki.iaca]
            for (index, expected) in [(0, CredentialStatus.valid), (3, .invalid), (4, .suspended)] {
                let check = await resolver.check(
                    StatusReference(index: UInt64(index), uri: cwtURI), format: .cwt, trustAnchors: anchors, at: Date())
                #expect(check.status == expected, "\(check)")
            }
            #expect(server.requestCount == 1)
            #expect(await resolver.fetchCount == 1)
            let jwt = await resolver.check(
                StatusReference(index: 2, uri: jwtURI), format: .jwt, trustAnchors: anchors, at: Date())
            #expect(jwt.status == .invalid)
            #expect(server.requestCount == 2)
            // Past the ttl (300 s): fetched again.
            clock.advance(301)
            let again = await resolver.check(
                StatusReference(index: 0, uri: cwtURI), format: .cwt, trustAnchors: anchors, at: Date())
            #expect(again.status == .valid)
            #expect(server.requestCount == 3)
        }
    }

    @Test("a wrong signer, a wrong sub, a bomb, an oversized token and a 404 give unknown")
    func refusedTokens() async throws {
        let issuer = try Issuer()
        let stranger = try Issuer()
        try await StatusListServer.with { server in
            let anchors = [issuer.pki.iaca]
            let resolver = try StatusListResolver(
                tlsCAs: [server.ca],
                limits: StatusListResolver.Limits(token: StatusListLimits(maximumTokenBytes: 64 << 10)))
            func check(_ name: String) async -> StatusCheck {
                await resolver.check(
                    StatusReference(index: 0, uri: server.base + "/" + name), format: .cwt, trustAnchors: anchors,
                    at: Date())
            }
            try server.serve(try stranger.cwt(subject: server.base + "/stranger.cwt"), as: "stranger.cwt")
            #expect(Self.unknownReason(await check("stranger.cwt"))?.contains("signer is not trusted") == true)
            try server.serve(try issuer.cwt(subject: server.base + "/other.cwt"), as: "wrong-sub.cwt")
            #expect(Self.unknownReason(await check("wrong-sub.cwt"))?.contains("sub") == true)
            let bomb = try StatusList(bits: 8, bytes: [UInt8](repeating: 1, count: 32 << 20))
            try server.serve(try issuer.cwt(subject: server.base + "/bomb.cwt", list: bomb), as: "bomb.cwt")
            #expect(Self.unknownReason(await check("bomb.cwt"))?.contains("inflates to more than") == true)
            // Random bytes do not compress: a token above the 64 KiB limit.
            let large = try StatusList(bits: 8, bytes: SecureRandom.bytes(200 << 10))
            try server.serve(try issuer.cwt(subject: server.base + "/large.cwt", list: large), as: "large.cwt")
            #expect(Self.unknownReason(await check("large.cwt"))?.contains("larger than") == true)
            #expect(Self.unknownReason(await check("missing.cwt"))?.contains("HTTP 404") == true)
            #expect(await resolver.fetchCount == 5)
        }
    }

    @Test("a slow server is cut off at the deadline; a server that is down and http:// give unknown at once")
    func unreachable() async throws {
        let issuer = try Issuer()
        try await StatusListServer.with { server in
            let uri = server.base + "/slow.cwt"
            try server.serve(try issuer.cwt(subject: uri + "?delay=10"), as: "slow.cwt")
            let resolver = try StatusListResolver(
                tlsCAs: [server.ca], limits: StatusListResolver.Limits(requestTimeout: .seconds(1)))
            let start = ContinuousClock.now
            let slow = await resolver.check(
                StatusReference(index: 0, uri: uri + "?delay=10"), format: .cwt, trustAnchors: [issuer.pki.iaca],
                at: Date())
            #expect(Self.unknownReason(slow)?.contains("did not answer within 1 s") == true, "\(slow)")
            #expect(ContinuousClock.now - start < .seconds(4))
        }
        let resolver = try StatusListResolver()
        let down = await resolver.check(
            StatusReference(index: 0, uri: "https://127.0.0.1:1/list.cwt"), format: .cwt,
            trustAnchors: [issuer.pki.iaca], at: Date())
        #expect(Self.unknownReason(down)?.contains("cannot connect") == true, "\(down)")
        let plain = await resolver.check(
            StatusReference(index: 0, uri: "http://127.0.0.1:1/list.cwt"), format: .cwt,
            trustAnchors: [issuer.pki.iaca], at: Date())
        #expect(Self.unknownReason(plain)?.contains("only https") == true, "\(plain)")
    }

    @Test("a token supplied offline is used without a fetch, for its own URI only")
    func offline() async throws {
        let issuer = try Issuer()
        let uri = "https://127.0.0.1:1/offline.cwt"
        let token = try StatusListResolver.OfflineToken(bytes: try issuer.cwt(subject: uri), source: "test")
        let resolver = try StatusListResolver(offlineTokens: [token])
        let known = await resolver.check(
            StatusReference(index: 3, uri: uri), format: .cwt, trustAnchors: [issuer.pki.iaca], at: Date())
        #expect(known.status == .invalid)
        // The same token for an SD-JWT VC (JWT wanted) is not used: fetched, and the host is down.
        let other = await resolver.check(
            StatusReference(index: 3, uri: uri), format: .jwt, trustAnchors: [issuer.pki.iaca], at: Date())
        #expect(other.status == nil)
        #expect(await resolver.fetchCount == 1)
        let jwt = try StatusListResolver.OfflineToken(bytes: try issuer.jwt(subject: uri), source: "test")
        #expect(jwt.token.format == .jwt)
    }
}
