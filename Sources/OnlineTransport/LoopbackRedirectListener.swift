import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where a headless holder receives the authorization redirect (RFC 8252 section 7.3): an
/// HTTP listener on 127.0.0.1 at a random port (or a given one), for one request to its path;
/// it answers that request and closes. Other paths get 404 and do not count; a request that is
/// not HTTP gets 400.
///
/// A socket of its own, served one connection at a time by one thread (a browser sends one
/// request): each connection's request head is read within ``requestTimeout`` and at most
/// ``maximumRequestHead`` bytes, answered, and closed.
///
/// The redirect's query holds the authorization code: it is handed to the flow, never logged.
public final class LoopbackRedirectListener: Sendable {
    public let port: Int
    public let path: String
    private let listening: Int32
    /// Written to when the listener closes, to wake the serving thread.
    private let wake: (read: Int32, write: Int32)
    private let state = Mutex(State())

    /// Longest request head read (request line and headers).
    static let maximumRequestHead = 16 * 1024
    /// How long one connection may take to send its request head.
    static let requestTimeout: Int = 5

    private struct State {
        var result: Result<String, HTTPFetchError>?
        var waiter: CheckedContinuation<Result<String, HTTPFetchError>, Never>?
    }

    /// `http://127.0.0.1:PORT/PATH`.
    public var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - port: 0 for a random free port.
    ///   - path: the redirect path (`/callback`).
    public static func start(port: Int = 0, path: String = "/callback") async throws(HTTPFetchError)
        -> LoopbackRedirectListener
    {
        guard (0...65535).contains(port) else {
            throw .connectionFailed(host: "127.0.0.1", reason: "cannot listen for the redirect: no port \(port)")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("socket") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let error = failure("bind")
            Glibc.close(fd)
            throw error
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let error = failure("pipe")
            Glibc.close(fd)
            throw error
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let listener = LoopbackRedirectListener(
            port: Int(UInt16(bigEndian: address.sin_port)), path: path, listening: fd,
            wake: (pipeEnds[0], pipeEnds[1]))
        // A thread of its own for the blocking accept loop (a serial queue runs on Dispatch's
        // overcommitting pool, never on the cooperative one).
        DispatchQueue(label: "mdoc-holder-redirect").async { listener.serve() }
        return listener
    }

    private static func failure(_ step: String) -> HTTPFetchError {
        .connectionFailed(
            host: "127.0.0.1", reason: "cannot listen for the redirect: \(step): \(String(cString: strerror(errno)))")
    }

    private init(port: Int, path: String, listening: Int32, wake: (read: Int32, write: Int32)) {
        self.port = port
        self.path = path
        self.listening = listening
        self.wake = wake
    }

    /// The query of the first request to ``path`` (without `?`), within `timeout`; the
    /// listener is closed afterwards either way.
    public func waitForRedirect(timeout: Duration) async throws(HTTPFetchError) -> String {
        let seconds = Int(timeout.components.seconds)
        let timer = Task {
            try await Task.sleep(for: timeout)
            finish(.failure(.timedOut(host: "127.0.0.1", seconds: seconds)))
        }
        let result = await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<String, HTTPFetchError>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        timer.cancel()
        await close()
        let target = try result.get()
        guard let question = target.firstIndex(of: "?") else { return "" }
        return String(target[target.index(after: question)...])
    }

    /// Settles the wait once: the first result wins.
    private func finish(_ result: Result<String, HTTPFetchError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<String, HTTPFetchError>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    /// The page the browser shows: an error redirect (RFC 6749 section 4.1.2.1) is not "done".
    static func page(_ target: String) -> String {
        let query = target.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        guard query.split(separator: "&").contains(where: { $0.hasPrefix("error=") }) else {
            return "Done: you can close this window and return to mdoc-holder.\n"
        }
        return "The authorization did not succeed: mdoc-holder says why. You can close this window.\n"
    }

    /// Stops listening (also when no redirect came).
    public func close() async {
        finish(.failure(.failed(host: "127.0.0.1", reason: "closed")))
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
    }

    // MARK: Serving

    /// Accepts and answers connections until the listener is closed; then closes its sockets.
    private func serve() {
        defer {
            Glibc.close(listening)
            Glibc.close(wake.read)
            Glibc.close(wake.write)
        }
        while true {
            var fds = [
                pollfd(fd: listening, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, -1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0, fds[1].revents == 0 else { return }
            let connection = accept(listening, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            answer(connection)
            Glibc.close(connection)
        }
    }

    /// Reads one request head from `connection` and answers it.
    private func answer(_ connection: Int32) {
        var timeout = timeval(tv_sec: Self.requestTimeout, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let head = Self.readHead(connection) else {
            respond(connection, status: "400 Bad Request", text: "Bad request.\n")
            return
        }
        // GET /callback?code=...&state=... HTTP/1.1
        let requestLine = head.prefix { $0 != 0x0D && $0 != 0x0A }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/1.".utf8)) else {
            respond(connection, status: "400 Bad Request", text: "Bad request.\n")
            return
        }
        let target = String(decoding: parts[1], as: UTF8.self)
        let requestPath = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard parts[0].elementsEqual("GET".utf8), requestPath == path else {
            respond(connection, status: "404 Not Found", text: "Not found.\n")
            return
        }
        respond(connection, status: "200 OK", text: Self.page(target))
        finish(.success(target))
    }

    /// The bytes up to the blank line that ends a request head; nil when the connection ends,
    /// times out or sends more than ``maximumRequestHead`` first.
    private static func readHead(_ connection: Int32) -> [UInt8]? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count <= maximumRequestHead {
            let n = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            head += buffer[0..<n]
            if head.firstRange(of: [0x0D, 0x0A, 0x0D, 0x0A]) != nil || head.firstRange(of: [0x0A, 0x0A]) != nil {
                return head
            }
        }
        return nil
    }

    private func respond(_ connection: Int32, status: String, text: String) {
        let body = Array(text.utf8)
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Connection: close\r\nCache-Control: no-store\r\n\r\n"
        let bytes = Array(response.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes {
                send(connection, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            sent += n
        }
    }
}
