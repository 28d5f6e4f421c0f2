import Curl
import Foundation
import MdocCrypto
import Testing

@testable import OnlineTransport

/// The HTTPS client's bounds, against the loopback verifier: https only, no redirects, a size
/// cap, timeouts, refused connections reported at once.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct HTTPFetcherTests {
    @Test("http:// and other schemes are refused without a connection")
    func httpsOnly() async throws {
        let fetcher = try HTTPFetcher()
        await #expect(throws: HTTPFetchError.notHTTPS(scheme: "http")) {
            _ = try await fetcher.get("http://127.0.0.1:1/x", accept: "*/*")
        }
        await #expect(throws: HTTPFetchError.notHTTPS(scheme: "ftp")) {
            _ = try await fetcher.postForm("ftp://127.0.0.1/x", form: "a=b")
        }
        await #expect(throws: HTTPFetchError.invalidURL) {
            _ = try await fetcher.get("https:///nohost", accept: "*/*")
        }
    }

    @Test("a refused connection is reported at once")
    func connectionRefused() async throws {
        // A port that was free a moment ago: bind, read the port, close.
        let port = try Self.freePort()
        let fetcher = try HTTPFetcher(limits: HTTPFetcher.Limits(requestTimeout: .seconds(20)))
        let start = ContinuousClock.now
        await #expect {
            _ = try await fetcher.get("https://127.0.0.1:\(port)/", accept: "*/*")
        } throws: { error in
            if case .connectionFailed(let host, _) = error as? HTTPFetchError { return host == "127.0.0.1" }
            return false
        }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test("redirects are not followed, large answers and slow servers are cut off")
    func bounds() async throws {
        try await LoopbackVerifier.with { verifier in
            await #expect(throws: HTTPFetchError.redirectRefused(host: "localhost", status: 302)) {
                _ = try await verifier.fetcher.get(verifier.base + "/redirect", accept: "*/*")
            }
            await #expect(throws: HTTPFetchError.responseTooLarge(host: "localhost", limit: 1 << 20)) {
                _ = try await verifier.fetcher.get(verifier.base + "/big", accept: "*/*")
            }
            // 100 MiB announced and sent: cut at the 1 MiB limit all the same.
            await #expect(throws: HTTPFetchError.responseTooLarge(host: "localhost", limit: 1 << 20)) {
                _ = try await verifier.fetcher.get(verifier.base + "/big?mb=100", accept: "*/*")
            }
            let impatient = try HTTPFetcher(
                additionalTrustRoots: [verifier.ca], limits: HTTPFetcher.Limits(requestTimeout: .seconds(1)))
            let start = ContinuousClock.now
            await #expect(throws: HTTPFetchError.timedOut(host: "localhost", seconds: 1)) {
                _ = try await impatient.get(verifier.base + "/slow?s=10", accept: "*/*")
            }
            // The timeout ends the exchange: no close is left to wait on a server that went silent.
            #expect(ContinuousClock.now - start < .seconds(4))
            // The verifier's own CA is what makes it trusted: by 127.0.0.1 too (IP SAN).
            let answer = try await verifier.fetcher.get("https://127.0.0.1:\(verifier.port)/done", accept: "*/*")
            #expect(answer.status == 200)
            #expect(answer.contentType == "text/plain")
        }
    }

    @Test("without the CA, the verifier's certificate is not trusted")
    func untrustedCertificate() async throws {
        try await LoopbackVerifier.with { verifier in
            let fetcher = try HTTPFetcher()
            await #expect {
                _ = try await fetcher.get(verifier.base + "/done", accept: "*/*")
            } throws: { error in
                if case .tlsFailed(let host, let reason) = error as? HTTPFetchError {
                    return host == "localhost" && reason.contains("trusted")
                }
                return false
            }
        }
    }

    @Test("an answer that trickles is cut off at the deadline of the whole exchange")
    func trickle() async throws {
        try await LoopbackVerifier.with { verifier in
            let impatient = try HTTPFetcher(
                additionalTrustRoots: [verifier.ca], limits: HTTPFetcher.Limits(requestTimeout: .seconds(2)))
            let start = ContinuousClock.now
            await #expect(throws: HTTPFetchError.timedOut(host: "localhost", seconds: 2)) {
                _ = try await impatient.get(verifier.base + "/trickle?n=30", accept: "*/*")
            }
            let took = ContinuousClock.now - start
            #expect(took >= .seconds(2) && took < .seconds(4), "\(took)")
        }
    }

    @Test("a cancelled task ends its exchange")
    func cancellation() async throws {
        try await LoopbackVerifier.with { verifier in
            let fetcher = verifier.fetcher
            let url = verifier.base + "/trickle?n=30"
            let start = ContinuousClock.now
            let task = Task { () async throws(HTTPFetchError) -> HTTPResponse in
                try await fetcher.get(url, accept: "*/*")
            }
            try await Task.sleep(for: .milliseconds(500))
            task.cancel()
            let result = await task.result
            #expect(throws: HTTPFetchError.failed(host: "localhost", reason: "cancelled")) { try result.get() }
            #expect(ContinuousClock.now - start < .seconds(3))
        }
    }

    @Test("the endpoint policy refuses addresses before connecting, and allows the party's own class")
    func endpointPolicy() async throws {
        try await LoopbackVerifier.with { verifier in
            let publicParty = EndpointPolicy(namedBy: "the issuer", partyAddress: IPAddress("198.51.100.10"))
            for url in ["https://127.0.0.1:\(verifier.port)/done", verifier.base + "/done"] {
                await #expect {
                    _ = try await verifier.fetcher.get(url, accept: "*/*", policy: publicParty)
                } throws: { error in
                    guard case .addressRefused(let host, let reason) = error as? HTTPFetchError else { return false }
                    return (host == "127.0.0.1" || host == "localhost") && reason.contains("a loopback address")
                        && reason.contains("endpoints named by the issuer")
                }
            }
            let loopbackParty = EndpointPolicy(namedBy: "the issuer", partyAddress: IPAddress("127.0.0.1"))
            let answer = try await verifier.fetcher.get(verifier.base + "/done", accept: "*/*", policy: loopbackParty)
            #expect(answer.status == 200)
            #expect(answer.remoteAddress.map { AddressClass($0) } == .loopback)
        }
    }

    @Test("the system trust store and --tls-ca both count")
    func systemStoreAndExtraCA() async throws {
        try await LoopbackVerifier.with { verifier in
            // The verifier's CA in a hashed directory standing for /etc/ssl/certs; an unrelated
            // CA as the --tls-ca: the verifier is trusted through the directory.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.copyItem(
                atPath: verifier.caPath, toPath: directory.appendingPathComponent("verifier.pem").path)
            let rehash = Process()
            rehash.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            rehash.arguments = ["rehash", directory.path]
            try rehash.run()
            rehash.waitUntilExit()
            #expect(rehash.terminationStatus == 0)
            let unrelated = try Certificate.parsePEM(
                String(
                    contentsOf: LoopbackVerifier.repository.appendingPathComponent("Fixtures/pki/iaca.pem"),
                    encoding: .utf8))
            let throughSystem = HTTPFetcher(
                additionalTrustRoots: unrelated, limits: HTTPFetcher.Limits(), systemCAPath: directory.path, proxy: nil)
            #expect(try await throughSystem.get(verifier.base + "/done", accept: "*/*").status == 200)
            let empty = directory.appendingPathComponent("empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let neither = HTTPFetcher(
                additionalTrustRoots: unrelated, limits: HTTPFetcher.Limits(), systemCAPath: empty.path, proxy: nil)
            await #expect {
                _ = try await neither.get(verifier.base + "/done", accept: "*/*")
            } throws: { error in
                if case .tlsFailed(_, let reason) = error as? HTTPFetchError { return reason.contains("trusted CA") }
                return false
            }
            // The verifier's CA as --tls-ca, the real system store beside it.
            #expect(try await verifier.fetcher.get(verifier.base + "/done", accept: "*/*").status == 200)
        }
    }

    @Test("a header value with a line break is refused, nothing sent")
    func headerInjection() async throws {
        let fetcher = try HTTPFetcher()
        await #expect {
            _ = try await fetcher.send(
                "https://127.0.0.1:1/x", method: "POST", headers: [("Authorization", "Bearer a\r\nX-Evil: 1")],
                body: nil)
        } throws: { error in
            if case .failed(_, let reason) = error as? HTTPFetchError { return reason.contains("line break") }
            return false
        }
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackVerifierError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw LoopbackVerifierError("bind failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw LoopbackVerifierError("getsockname failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
