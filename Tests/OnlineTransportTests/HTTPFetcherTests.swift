import Foundation
import OnlineTransport
import Testing

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
        await fetcher.shutdown()
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
        await fetcher.shutdown()
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
            let impatient = try HTTPFetcher(
                additionalTrustRoots: [verifier.ca], limits: HTTPFetcher.Limits(requestTimeout: .seconds(1)))
            let start = ContinuousClock.now
            await #expect(throws: HTTPFetchError.timedOut(host: "localhost", seconds: 1)) {
                _ = try await impatient.get(verifier.base + "/slow?s=10", accept: "*/*")
            }
            // The timeout and the close after it (TLS shutdown with a server that went silent).
            await impatient.shutdown()
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
            await fetcher.shutdown()
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
