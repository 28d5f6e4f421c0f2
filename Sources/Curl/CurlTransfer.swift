import CCurl
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTPS request as libcurl runs it. Only `https` URLs are used; redirects are never
/// followed; a proxy only when ``proxy`` says so (see ``Curl``).
public struct CurlRequest: Sendable {
    public var url: String
    /// `GET`, `POST` or another token.
    public var method: String
    /// Request headers, in order. Values carrying CR, LF or NUL are refused.
    public var headers: [(String, String)]
    public var body: [UInt8]?
    /// The whole exchange: connection, TLS, request, the complete answer.
    public var timeout: Duration
    /// The TCP connection and the TLS handshake.
    public var connectTimeout: Duration
    /// The largest answer body read; a larger one aborts the transfer.
    public var maximumResponseBytes: Int
    /// CA certificates (PEM) trusted besides the system trust store.
    public var additionalCAsPEM: [UInt8]?
    /// The system trust store: a directory of hashed certificates (`c_rehash` / `openssl rehash`).
    public var systemCAPath: String
    /// Asked for every address before a socket is made for it: a reason refuses the address
    /// (no socket is made, no connection attempted), nil allows it.
    public var connectFilter: (@Sendable (IPAddress) -> String?)?
    /// The HTTP proxy to tunnel through (nil: none; the environment is never read here, see
    /// ``CurlProxy/fromEnvironment(_:)``). Through a proxy, ``connectFilter`` is asked for the
    /// endpoint's addresses (resolved here) and the tunnel is opened to the checked address;
    /// the proxy's own address is not filtered.
    public var proxy: CurlProxy?

    public init(
        url: String, method: String = "GET", headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10), maximumResponseBytes: Int = 1 << 20,
        additionalCAsPEM: [UInt8]? = nil, systemCAPath: String = "/etc/ssl/certs",
        connectFilter: (@Sendable (IPAddress) -> String?)? = nil, proxy: CurlProxy? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maximumResponseBytes = maximumResponseBytes
        self.additionalCAsPEM = additionalCAsPEM
        self.systemCAPath = systemCAPath
        self.connectFilter = connectFilter
        self.proxy = proxy
    }
}

/// The answer: the last response's status and headers, the body, the address connected to
/// (through a proxy: the endpoint's address the tunnel was opened to, not the proxy's).
public struct CurlResponse: Sendable {
    public let status: Int
    /// Header names as sent (HTTP/2: lowercase), in order; the status line is not among them.
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]
    public let remoteAddress: IPAddress?
}

/// Why a transfer failed. Never carries a body, a header value or a form value.
public enum CurlFailure: Error, Sendable, Equatable {
    /// Not a request libcurl is given (bad URL, a header with a line break, ...).
    case invalidRequest(String)
    /// The ``CurlRequest/connectFilter`` refused every address tried; the last one and why.
    case addressRefused(IPAddress, reason: String)
    /// The deadline passed; `connected`: the connection and TLS were up by then.
    case timedOut(connected: Bool)
    /// The answer was larger than ``CurlRequest/maximumResponseBytes``.
    case tooLarge
    /// The task was cancelled.
    case cancelled
    case couldNotResolve
    /// The TCP connection failed (refused, unreachable).
    case couldNotConnect(refused: Bool)
    /// The proxy could not be used: `proxy` is its `host:port` (never its credentials),
    /// `reason` why (its name did not resolve, no connection, its answer to CONNECT).
    case proxyFailed(proxy: String, reason: String)
    /// The server certificate did not verify: `chain`: not to a trusted CA (or expired...),
    /// else it does not name the host.
    case certificateRefused(chain: Bool)
    /// The TLS handshake failed otherwise.
    case tlsFailed
    /// The server closed the connection or sent something that is not HTTP.
    case connectionClosed
    /// Another libcurl error: its code and its text.
    case other(code: Int, message: String)
    /// libcurl (`libcurl.so.4`, Debian package `libcurl4`) could not be loaded or set up:
    /// what is missing and what to install.
    case libraryUnavailable(String)
}

/// The one place libcurl is called: a blocking easy transfer on its own thread (never on
/// the cooperative pool), bounded by a total deadline and a size cap, aborted when the task
/// is cancelled.
///
/// Settings of every transfer: protocols `https` only (redirects too, though none is
/// followed); TLS 1.2 or later with the chain and the host name verified against the system
/// trust store and the request's extra CAs; no signals; no content decoding. libcurl never
/// reads the environment's proxy variables: without ``CurlRequest/proxy`` (or when its
/// `no_proxy` list names the host) the socket goes to the endpoint, and
/// ``CurlRequest/connectFilter`` checks the address as the socket is made; with it the host
/// is resolved here, every address checked, and libcurl told (`CURLOPT_CONNECT_TO`) to have
/// the proxy open its CONNECT tunnel to the first address allowed (the next one when the
/// proxy cannot open that tunnel) — so the address checked is the address connected to, and
/// TLS (SNI, the certificate's name) still uses the host name.
public enum Curl {
    /// The version libcurl reports (`libcurl/7.88.1 OpenSSL/3.0.x ...`); loads libcurl.
    public static var version: Result<String, CurlFailure> {
        CurlLibrary.shared.map { library in library.version().map { String(cString: $0) } ?? "" }
    }

    /// Runs `request` to its end (the whole answer, an error, the deadline or cancellation).
    public static func perform(_ request: CurlRequest) async throws(CurlFailure) -> CurlResponse {
        // Loaded (and its global state set up) by the first transfer of the process.
        let transfer = Transfer(request, curl: try CurlLibrary.shared.get())
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<CurlResponse, CurlFailure>, Never>) in
                // A thread of its own for the blocking transfer (a serial queue runs on
                // Dispatch's overcommitting pool, never on the cooperative one).
                DispatchQueue(label: "mdoc-holder-https").async {
                    continuation.resume(returning: transfer.run())
                }
            }
        } onCancel: {
            transfer.cancelled.store(true, ordering: .relaxed)
        }
        return try result.get()
    }
}

/// One transfer's state. The mutable members are touched only by the thread that runs the
/// transfer (inside libcurl's callbacks, then to build the result); `cancelled` is atomic.
private final class Transfer: @unchecked Sendable {
    let request: CurlRequest
    let curl: CurlLibrary
    let cancelled = Atomic<Bool>(false)
    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    var tooLarge = false
    var refusal: (IPAddress, String)?
    /// The tunnel of the current attempt; nil: a direct connection.
    var route: Route?

    /// A CONNECT tunnel through `proxy` to `address`:`port`, the endpoint's checked address.
    struct Route {
        let proxy: CurlProxy
        let address: IPAddress
        let port: Int
    }

    init(_ request: CurlRequest, curl: CurlLibrary) {
        self.request = request
        self.curl = curl
    }

    func run() -> Result<CurlResponse, CurlFailure> {
        let connectBudget = min(request.connectTimeout, request.timeout)
        guard let proxy = request.proxy else {
            return attempt(nil, timeout: request.timeout, connectTimeout: connectBudget).result
        }
        guard let target = target(of: request.url) else {
            return .failure(.invalidRequest("the URL is not one libcurl takes"))
        }
        if proxy.bypasses(host: target.host) {
            return attempt(nil, timeout: request.timeout, connectTimeout: connectBudget).result
        }
        guard proxy.authority != nil else {
            return .failure(.invalidRequest("the proxy (https_proxy) is not an http:// proxy URL"))
        }
        let start = ContinuousClock.now
        let addresses: [IPAddress]
        switch resolve(target.host, within: connectBudget) {
        case .success(let found): addresses = found
        case .failure(let failure): return .failure(failure)
        }
        guard !addresses.isEmpty else { return .failure(.couldNotResolve) }
        var allowed: [IPAddress] = []
        var lastRefusal: (IPAddress, String)?
        for address in addresses {
            if let reason = request.connectFilter?(address) {
                lastRefusal = (address, reason)
            } else {
                allowed.append(address)
            }
        }
        guard !allowed.isEmpty else {
            guard let (address, reason) = lastRefusal else { return .failure(.couldNotResolve) }
            return .failure(.addressRefused(address, reason: reason))
        }
        var outcome: Result<CurlResponse, CurlFailure> = .failure(.couldNotResolve)
        for (index, address) in allowed.enumerated() {
            let elapsed = ContinuousClock.now - start
            guard elapsed < connectBudget else { return .failure(.timedOut(connected: false)) }
            let route = Route(proxy: proxy, address: address, port: target.port)
            let (result, tunnelStatus) = attempt(
                route, timeout: request.timeout - elapsed, connectTimeout: connectBudget - elapsed)
            outcome = result
            // The next address only when the proxy could not open a tunnel to this one.
            guard case .failure = result, tunnelStatus >= 300, index + 1 < allowed.count else { return result }
        }
        return outcome
    }

    /// One transfer on a new handle, directly (`route` nil) or through a tunnel; also the
    /// proxy's answer to CONNECT (0: none).
    private func attempt(_ route: Route?, timeout: Duration, connectTimeout: Duration) -> (
        result: Result<CurlResponse, CurlFailure>, tunnelStatus: Int
    ) {
        body = []
        headers = []
        tooLarge = false
        refusal = nil
        self.route = route
        guard let handle = curl.easyInit() else { return (.failure(.other(code: -1, message: "no curl handle")), 0) }
        defer { curl.easyCleanup(handle) }
        var lists: [UnsafeMutablePointer<curl_slist>] = []
        defer { for list in lists { curl.slistFreeAll(list) } }
        do {
            lists = try configure(handle, timeout: timeout, connectTimeout: connectTimeout)
        } catch {
            return (.failure(error), 0)
        }
        let code = withExtendedLifetime(self) { curl.easyPerform(handle) }
        var tunnelStatus = 0
        if route != nil { mdoc_curl_getinfo_long(curl.easyGetinfo, handle, CURLINFO_HTTP_CONNECTCODE, &tunnelStatus) }
        if code != CURLE_OK {
            return (.failure(failure(code, handle: handle, tunnelStatus: tunnelStatus)), tunnelStatus)
        }
        var status = 0
        mdoc_curl_getinfo_long(curl.easyGetinfo, handle, CURLINFO_RESPONSE_CODE, &status)
        let remote = route?.address ?? primaryIP(handle)
        return (
            .success(CurlResponse(status: status, headers: headers, body: body, remoteAddress: remote)), tunnelStatus
        )
    }

    /// The host (IPv6 literals in brackets, IDNs in punycode) and port (443 when none is
    /// given) of `url`, read by libcurl's own URL parser: what libcurl would connect to.
    private func target(of url: String) -> (host: String, port: Int)? {
        guard let handle = curl.url() else { return nil }
        defer { curl.urlCleanup(handle) }
        guard curl.urlSet(handle, CURLUPART_URL, url, 0) == CURLUE_OK else { return nil }
        func part(_ what: CURLUPart, _ flags: Int32) -> String? {
            var text: UnsafeMutablePointer<CChar>?
            guard curl.urlGet(handle, what, &text, UInt32(flags)) == CURLUE_OK, let text else { return nil }
            defer { curl.free(text) }
            return String(cString: text)
        }
        guard let host = part(CURLUPART_HOST, CURLU_PUNYCODE), !host.isEmpty,
            let port = part(CURLUPART_PORT, CURLU_DEFAULT_PORT).flatMap({ Int($0) })
        else { return nil }
        return (host, port)
    }

    /// The addresses `host` resolves to (getaddrinfo on a thread of its own), waiting at most
    /// `within` and no longer than the task stays uncancelled; libcurl's order and its answer
    /// for localhost, so a refusal names the same address with and without a proxy.
    private func resolve(_ host: String, within: Duration) -> Result<[IPAddress], CurlFailure> {
        if let literal = IPAddress(host) { return .success([literal]) }
        // As libcurl does, without asking the resolver: localhost and *.localhost are loopback.
        let lowercased = host.lowercased()
        if lowercased == "localhost" || lowercased.hasSuffix(".localhost") {
            return .success([IPAddress("127.0.0.1"), IPAddress("::1")].compactMap { $0 })
        }
        let lookup = Lookup()
        DispatchQueue(label: "mdoc-holder-resolve").async {
            let found = IPAddress.lookUp(host)
            lookup.addresses.withLock { $0 = found }
            lookup.done.signal()
        }
        let deadline = ContinuousClock.now + within
        while true {
            if lookup.done.wait(timeout: .now() + .milliseconds(50)) == .success {
                return .success(lookup.addresses.withLock { $0 })
            }
            if cancelled.load(ordering: .relaxed) { return .failure(.cancelled) }
            if ContinuousClock.now >= deadline { return .failure(.timedOut(connected: false)) }
        }
    }

    /// A name lookup's result, handed from its thread (which may outlive the wait).
    private final class Lookup: Sendable {
        let done = DispatchSemaphore(value: 0)
        let addresses = Mutex<[IPAddress]>([])
    }

    private func primaryIP(_ handle: UnsafeMutableRawPointer) -> IPAddress? {
        var text: UnsafeMutablePointer<CChar>?
        guard mdoc_curl_getinfo_string(curl.easyGetinfo, handle, CURLINFO_PRIMARY_IP, &text) == CURLE_OK, let text
        else { return nil }
        return IPAddress(String(cString: text))
    }

    /// Every option of the transfer; returns the lists to free after it.
    private func configure(
        _ handle: UnsafeMutableRawPointer, timeout: Duration, connectTimeout: Duration
    ) throws(CurlFailure) -> [UnsafeMutablePointer<curl_slist>] {
        var options = CurlEasyOptions(handle, curl: curl)
        do throws(CurlFailure) {
            options.string(CURLOPT_URL, request.url)
            options.string(CURLOPT_PROTOCOLS_STR, "https")
            options.string(CURLOPT_REDIR_PROTOCOLS_STR, "https")
            options.long(CURLOPT_FOLLOWLOCATION, 0)
            options.long(CURLOPT_NOSIGNAL, 1)
            setRoute(&options)
            options.long(CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout))
            options.long(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout))
            setTrust(&options)
            options.offset(CURLOPT_MAXFILESIZE_LARGE, request.maximumResponseBytes)
            setCallbacks(&options)
            try setMethod(&options)
            options.list(CURLOPT_HTTPHEADER, try headerLines())
            if options.failed != CURLE_OK { throw failure(options.failed) }
        } catch {
            options.freeLists()
            throw error
        }
        return options.lists
    }

    /// Never the environment's proxy variables (see Curl): a tunnel to the checked address, or none.
    private func setRoute(_ options: inout CurlEasyOptions) {
        guard let route else {
            options.string(CURLOPT_PROXY, "")
            return
        }
        options.string(CURLOPT_PROXY, route.proxy.url)
        options.long(CURLOPT_PROXYTYPE, Int(CURLPROXY_HTTP.rawValue))
        options.long(CURLOPT_HTTPPROXYTUNNEL, 1)
        options.string(CURLOPT_NOPROXY, "")
        // Any host and port of the URL ("::"): connect to the checked address, which the
        // CONNECT request then names; SNI and the certificate check keep the URL's host.
        let address = route.address.isIPv4 ? "\(route.address)" : "[\(route.address)]"
        options.list(CURLOPT_CONNECT_TO, ["::\(address):\(route.port)"])
    }

    /// TLS 1.2 or later; the chain and the host name verified against the system trust store
    /// and the request's extra CAs.
    private func setTrust(_ options: inout CurlEasyOptions) {
        options.long(CURLOPT_SSL_VERIFYPEER, 1)
        options.long(CURLOPT_SSL_VERIFYHOST, 2)
        options.long(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        options.string(CURLOPT_CAPATH, request.systemCAPath)
        if var pem = request.additionalCAsPEM, !pem.isEmpty {
            // Replaces the CA file (the system bundle); the system store stays through CAPATH.
            pem.withUnsafeMutableBytes { raw in
                var blob = curl_blob(data: raw.baseAddress, len: raw.count, flags: UInt32(CURL_BLOB_COPY))
                options.check(mdoc_curl_setopt_blob(curl.easySetopt, options.handle, CURLOPT_CAINFO_BLOB, &blob))
            }
        }
    }

    /// libcurl's callbacks (below), which find this transfer through their user pointer.
    private func setCallbacks(_ options: inout CurlEasyOptions) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        options.check(mdoc_curl_setopt_write(curl.easySetopt, options.handle, CURLOPT_WRITEFUNCTION, writeBody))
        options.pointer(CURLOPT_WRITEDATA, context)
        options.check(mdoc_curl_setopt_write(curl.easySetopt, options.handle, CURLOPT_HEADERFUNCTION, writeHeader))
        options.pointer(CURLOPT_HEADERDATA, context)
        options.long(CURLOPT_NOPROGRESS, 0)
        options.check(mdoc_curl_setopt_xferinfo(curl.easySetopt, options.handle, progress))
        options.pointer(CURLOPT_XFERINFODATA, context)
        options.check(mdoc_curl_setopt_opensocket(curl.easySetopt, options.handle, openSocket))
        options.pointer(CURLOPT_OPENSOCKETDATA, context)
    }

    /// The method, and for any but GET the body (copied by libcurl).
    private func setMethod(_ options: inout CurlEasyOptions) throws(CurlFailure) {
        switch request.method {
        case "GET":
            options.long(CURLOPT_HTTPGET, 1)
            return
        case "POST":
            options.long(CURLOPT_POST, 1)
        default:
            guard request.method.allSatisfy({ $0.isLetter && $0.isASCII }) else {
                throw .invalidRequest("the method is not a token")
            }
            options.string(CURLOPT_CUSTOMREQUEST, request.method)
        }
        let body = request.body ?? []
        options.offset(CURLOPT_POSTFIELDSIZE_LARGE, body.count)
        body.withUnsafeBufferPointer { buffer in
            // An empty body still needs a non-null pointer.
            let empty: CChar = 0
            withUnsafePointer(to: empty) { emptyPointer in
                let pointer = buffer.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(emptyPointer)
                options.pointer(CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: pointer))
            }
        }
    }

    /// The request's headers as libcurl's lines, then "Expect:" and, unless the request sets
    /// them, "Content-Type:" and "Accept:" (an empty value drops libcurl's own).
    private func headerLines() throws(CurlFailure) -> [String] {
        var lines: [String] = []
        var names = Set<String>()
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw .invalidRequest("a request header name is not a token")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw .invalidRequest("a request header value carries a line break")
            }
            names.insert(name.lowercased())
            // "Name;" sends a header with an empty value ("Name:" would remove it).
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // No "Expect: 100-continue" round trip; no Content-Type or Accept the caller did not set.
        lines.append("Expect:")
        if !names.contains("content-type") { lines.append("Content-Type:") }
        if !names.contains("accept") { lines.append("Accept:") }
        return lines
    }

    /// What a libcurl code says when nothing more is known: a URL libcurl does not take, or
    /// its own text.
    private func failure(_ code: CURLcode) -> CurlFailure {
        if code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT {
            return .invalidRequest("the URL is not one libcurl takes")
        }
        return .other(
            code: Int(code.rawValue), message: curl.easyStrerror(code).map { String(cString: $0) } ?? "libcurl error")
    }

    private func failure(_ code: CURLcode, handle: UnsafeMutableRawPointer, tunnelStatus: Int) -> CurlFailure {
        if cancelled.load(ordering: .relaxed), code == CURLE_ABORTED_BY_CALLBACK { return .cancelled }
        if tooLarge || code == CURLE_FILESIZE_EXCEEDED { return .tooLarge }
        if let route, code != CURLE_OPERATION_TIMEDOUT, let reason = Self.proxyReason(code, tunnelStatus: tunnelStatus)
        {
            return .proxyFailed(proxy: route.proxy.displayName, reason: reason)
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            var appConnect: curl_off_t = 0
            mdoc_curl_getinfo_offset(curl.easyGetinfo, handle, CURLINFO_APPCONNECT_TIME_T, &appConnect)
            return .timedOut(connected: appConnect > 0)
        case CURLE_COULDNT_CONNECT:
            if let (address, reason) = refusal { return .addressRefused(address, reason: reason) }
            var errno = 0
            mdoc_curl_getinfo_long(curl.easyGetinfo, handle, CURLINFO_OS_ERRNO, &errno)
            return .couldNotConnect(refused: errno == Int(ECONNREFUSED))
        case CURLE_COULDNT_RESOLVE_HOST:
            return .couldNotResolve
        case CURLE_PEER_FAILED_VERIFICATION:
            var result = 0
            mdoc_curl_getinfo_long(curl.easyGetinfo, handle, CURLINFO_SSL_VERIFYRESULT, &result)
            return .certificateRefused(chain: result != 0)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE:
            return .tlsFailed
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE,
            CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .connectionClosed
        default:
            return failure(code)
        }
    }

    /// Why the proxy, not the endpoint, failed the transfer; nil when the tunnel was open.
    private static func proxyReason(_ code: CURLcode, tunnelStatus: Int) -> String? {
        if tunnelStatus == 407 { return "it asks for authentication (HTTP 407)" }
        if tunnelStatus >= 300 { return "it answered the tunnel request with HTTP \(tunnelStatus)" }
        guard tunnelStatus == 0 else { return nil }
        switch code {
        case CURLE_COULDNT_RESOLVE_PROXY:
            return "its name cannot be resolved"
        case CURLE_COULDNT_CONNECT:
            return "no connection could be made to it"
        case CURLE_PROXY:
            return "the proxy handshake failed"
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_WEIRD_SERVER_REPLY:
            return "it closed the connection without opening a tunnel"
        default:
            return nil
        }
    }

    fileprivate func takeBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= request.maximumResponseBytes else {
            tooLarge = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    fileprivate func takeHeader(_ bytes: UnsafeRawBufferPointer) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = String(decoding: bytes[0..<end], as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            // A new response (after 1xx): only the last one's headers are kept.
            headers = []
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingSpacesAndTabs()
        let value = line[line.index(after: colon)...].trimmingSpacesAndTabs()
        headers.append((name, value))
    }

    fileprivate func open(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        // Through a proxy the socket goes to the proxy (the operator's choice); the endpoint's
        // address was checked before the transfer and is what the tunnel is opened to.
        if route == nil, let filter = request.connectFilter {
            guard let ip = IPAddress(socketAddress: mdoc_curl_sockaddr(address)) else {
                refusal = nil
                return mdoc_curl_socket_bad()
            }
            if let reason = filter(ip) {
                refusal = (ip, reason)
                return mdoc_curl_socket_bad()
            }
        }
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }

    /// RFC 9110 token characters.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

// libcurl's callbacks: C functions that find their transfer through the user pointer.

private func transfer(_ pointer: UnsafeMutableRawPointer?) -> Transfer? {
    pointer.map { Unmanaged<Transfer>.fromOpaque($0).takeUnretainedValue() }
}

private let writeBody: curl_write_callback = { data, size, count, context in
    guard let transfer = transfer(context) else { return 0 }
    let length = size * count
    guard length > 0, let data else { return 0 }
    // Any other count than `length` aborts the transfer (CURLE_WRITE_ERROR).
    return transfer.takeBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let writeHeader: curl_write_callback = { data, size, count, context in
    guard let transfer = transfer(context) else { return 0 }
    let length = size * count
    if length > 0, let data { transfer.takeHeader(UnsafeRawBufferPointer(start: data, count: length)) }
    return length
}

private let progress: curl_xferinfo_callback = { context, _, _, _, _ in
    guard let transfer = transfer(context) else { return 1 }
    return transfer.cancelled.load(ordering: .relaxed) ? 1 : 0
}

private let openSocket: curl_opensocket_callback = { context, purpose, address in
    guard let transfer = transfer(context), let address, purpose == CURLSOCKTYPE_IPCXN else {
        return mdoc_curl_socket_bad()
    }
    return transfer.open(address)
}
