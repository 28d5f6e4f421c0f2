import Glibc
import Testing

@testable import OnlineTransport

/// The redirect listener answers real HTTP on 127.0.0.1: the redirect path hands its query to
/// the flow, anything else is answered and ignored, and a wait ends at its deadline.
struct LoopbackRedirectListenerTests {
    /// Sends `request` to 127.0.0.1:`port` and returns the whole answer (the listener closes).
    private func exchange(port: Int, _ request: String) -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return "not connected" }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    @Test func theRedirectHandsOverItsQueryAfterOtherRequestsAreTurnedAway() async throws {
        let listener = try await LoopbackRedirectListener.start()
        #expect(listener.port > 0)
        #expect(listener.redirectURI == "http://127.0.0.1:\(listener.port)/callback")
        let other = exchange(port: listener.port, "GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(other.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        let post = exchange(port: listener.port, "POST /callback?code=x HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        #expect(post.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        let garbage = exchange(port: listener.port, "hello\r\n\r\n")
        #expect(garbage.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        let redirect = exchange(port: listener.port, "GET /callback?code=c1&state=s1 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(redirect.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(redirect.contains("Cache-Control: no-store\r\n"))
        #expect(redirect.hasSuffix(LoopbackRedirectListener.page("/callback?code=c1")))
        let query = try await listener.waitForRedirect(timeout: .seconds(5))
        #expect(query == "code=c1&state=s1")
    }

    @Test func aWaitWithoutARedirectEndsAtItsDeadlineAndTheListenerCloses() async throws {
        let listener = try await LoopbackRedirectListener.start()
        let error = await #expect(throws: HTTPFetchError.self) {
            _ = try await listener.waitForRedirect(timeout: .milliseconds(200))
        }
        guard case .timedOut? = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        // Closed: a new connection is refused once the serving thread has let go.
        var refused = false
        for _ in 0..<50 where !refused {
            refused = exchange(port: listener.port, "GET /callback HTTP/1.1\r\n\r\n") == "not connected"
            if !refused { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(refused)
    }

    @Test func aPortInUseIsReportedAsAConnectionFailure() async throws {
        let first = try await LoopbackRedirectListener.start()
        defer { Task { await first.close() } }
        await #expect(throws: HTTPFetchError.self) { _ = try await LoopbackRedirectListener.start(port: first.port) }
    }
}
