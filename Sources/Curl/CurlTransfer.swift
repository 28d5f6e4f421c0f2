import CCurl
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTPS request as libcurl runs it. Only `https` URLs are used; redirects are never
/// followed; proxies in the environment are not used (see ``Curl``).
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

    public init(
        url: String, method: String = "GET", headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10), maximumResponseBytes: Int = 1 << 20,
        additionalCAsPEM: [UInt8]? = nil, systemCAPath: String = "/etc/ssl/certs",
        connectFilter: (@Sendable (IPAddress) -> String?)? = nil
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
    }
}

/// The answer: the last response's status and headers, the body, the address connected to.
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
    /// The server certificate did not verify: `chain`: not to a trusted CA (or expired...),
    /// else it does not name the host.
    case certificateRefused(chain: Bool)
    /// The TLS handshake failed otherwise.
    case tlsFailed
    /// The server closed the connection or sent something that is not HTTP.
    case connectionClosed
    /// Another libcurl error: its code and its text.
    case other(code: Int, message: String)
}

/// The one place libcurl is called: a blocking easy transfer on its own thread (never on
/// the cooperative pool), bounded by a total deadline and a size cap, aborted when the task
/// is cancelled.
///
/// Settings of every transfer: protocols `https` only (redirects too, though none is
/// followed); TLS 1.2 or later with the chain and the host name verified against the system
/// trust store and the request's extra CAs; no proxy (environment variables such as
/// `https_proxy` are ignored: the address a socket connects to is always the endpoint's own,
/// which ``CurlRequest/connectFilter`` checks); no signals; no content decoding.
public enum Curl {
    /// libcurl's global state, set up once before the first handle.
    private static let initialized: Bool = mdoc_curl_global_init() == CURLE_OK

    /// The version libcurl reports (`libcurl/7.88.1 OpenSSL/3.0.x ...`).
    public static var version: String { String(cString: curl_version()) }

    /// Runs `request` to its end (the whole answer, an error, the deadline or cancellation).
    public static func perform(_ request: CurlRequest) async throws(CurlFailure) -> CurlResponse {
        guard initialized else { throw .other(code: -1, message: "libcurl could not be initialised") }
        let transfer = Transfer(request)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<CurlResponse, CurlFailure>, Never>) in
                let thread = Thread {
                    continuation.resume(returning: transfer.run())
                }
                thread.name = "mdoc-holder-https"
                thread.start()
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
    let cancelled = Atomic<Bool>(false)
    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    var tooLarge = false
    var refusal: (IPAddress, String)?

    init(_ request: CurlRequest) {
        self.request = request
    }

    func run() -> Result<CurlResponse, CurlFailure> {
        guard let handle = curl_easy_init() else { return .failure(.other(code: -1, message: "no curl handle")) }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        do {
            list = try configure(handle)
        } catch {
            return .failure(error)
        }
        let code = withExtendedLifetime(self) { curl_easy_perform(handle) }
        if code != CURLE_OK { return .failure(failure(code, handle: handle)) }
        var status = 0
        mdoc_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(
            CurlResponse(status: status, headers: headers, body: body, remoteAddress: Self.primaryIP(handle)))
    }

    private static func primaryIP(_ handle: UnsafeMutableRawPointer) -> IPAddress? {
        var text: UnsafeMutablePointer<CChar>?
        guard mdoc_curl_getinfo_string(handle, CURLINFO_PRIMARY_IP, &text) == CURLE_OK, let text else { return nil }
        return IPAddress(String(cString: text))
    }

    /// Every option of the transfer; returns the header list to free after it.
    private func configure(_ handle: UnsafeMutableRawPointer) throws(CurlFailure) -> UnsafeMutablePointer<curl_slist>? {
        var failed: CURLcode = CURLE_OK
        func check(_ code: CURLcode) { if code != CURLE_OK, failed == CURLE_OK { failed = code } }
        func long(_ option: CURLoption, _ value: Int) { check(mdoc_curl_setopt_long(handle, option, value)) }
        func string(_ option: CURLoption, _ value: String) { check(mdoc_curl_setopt_string(handle, option, value)) }

        string(CURLOPT_URL, request.url)
        string(CURLOPT_PROTOCOLS_STR, "https")
        string(CURLOPT_REDIR_PROTOCOLS_STR, "https")
        long(CURLOPT_FOLLOWLOCATION, 0)
        long(CURLOPT_NOSIGNAL, 1)
        // The environment's proxies are not used (see Curl).
        string(CURLOPT_PROXY, "")
        long(CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout))
        long(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout))
        long(CURLOPT_SSL_VERIFYPEER, 1)
        long(CURLOPT_SSL_VERIFYHOST, 2)
        long(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        string(CURLOPT_CAPATH, request.systemCAPath)
        if var pem = request.additionalCAsPEM, !pem.isEmpty {
            // Replaces the CA file (the system bundle); the system store stays through CAPATH.
            pem.withUnsafeMutableBytes { raw in
                var blob = curl_blob(data: raw.baseAddress, len: raw.count, flags: UInt32(CURL_BLOB_COPY))
                check(mdoc_curl_setopt_blob(handle, CURLOPT_CAINFO_BLOB, &blob))
            }
        }
        check(mdoc_curl_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maximumResponseBytes)))

        let context = Unmanaged.passUnretained(self).toOpaque()
        check(mdoc_curl_setopt_write(handle, CURLOPT_WRITEFUNCTION, writeBody))
        check(mdoc_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
        check(mdoc_curl_setopt_write(handle, CURLOPT_HEADERFUNCTION, writeHeader))
        check(mdoc_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
        long(CURLOPT_NOPROGRESS, 0)
        check(mdoc_curl_setopt_xferinfo(handle, progress))
        check(mdoc_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context))
        check(mdoc_curl_setopt_opensocket(handle, openSocket))
        check(mdoc_curl_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context))

        switch request.method {
        case "GET":
            long(CURLOPT_HTTPGET, 1)
        case "POST":
            long(CURLOPT_POST, 1)
        default:
            guard request.method.allSatisfy({ $0.isLetter && $0.isASCII }) else {
                throw .invalidRequest("the method is not a token")
            }
            string(CURLOPT_CUSTOMREQUEST, request.method)
        }
        if request.method != "GET" {
            let body = request.body ?? []
            check(mdoc_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            body.withUnsafeBufferPointer { buffer in
                // Copied by libcurl; an empty body still needs a non-null pointer.
                let empty: CChar = 0
                withUnsafePointer(to: empty) { emptyPointer in
                    let pointer = buffer.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(emptyPointer)
                    check(
                        mdoc_curl_setopt_pointer(
                            handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: pointer)))
                }
            }
        }

        var list: UnsafeMutablePointer<curl_slist>?
        var names = Set<String>()
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                curl_slist_free_all(list)
                throw .invalidRequest("a request header name is not a token")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                curl_slist_free_all(list)
                throw .invalidRequest("a request header value carries a line break")
            }
            names.insert(name.lowercased())
            // "Name;" sends a header with an empty value ("Name:" would remove it).
            list = curl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // No "Expect: 100-continue" round trip; no Content-Type or Accept the caller did not set.
        list = curl_slist_append(list, "Expect:")
        if !names.contains("content-type") { list = curl_slist_append(list, "Content-Type:") }
        if !names.contains("accept") { list = curl_slist_append(list, "Accept:") }
        check(mdoc_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
        if failed != CURLE_OK {
            curl_slist_free_all(list)
            if failed == CURLE_UNSUPPORTED_PROTOCOL || failed == CURLE_URL_MALFORMAT {
                throw .invalidRequest("the URL is not one libcurl takes")
            }
            throw .other(code: Int(failed.rawValue), message: String(cString: curl_easy_strerror(failed)))
        }
        return list
    }

    private func failure(_ code: CURLcode, handle: UnsafeMutableRawPointer) -> CurlFailure {
        if cancelled.load(ordering: .relaxed), code == CURLE_ABORTED_BY_CALLBACK { return .cancelled }
        if tooLarge || code == CURLE_FILESIZE_EXCEEDED { return .tooLarge }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            var appConnect: curl_off_t = 0
            mdoc_curl_getinfo_offset(handle, CURLINFO_APPCONNECT_TIME_T, &appConnect)
            return .timedOut(connected: appConnect > 0)
        case CURLE_COULDNT_CONNECT:
            if let (address, reason) = refusal { return .addressRefused(address, reason: reason) }
            var errno = 0
            mdoc_curl_getinfo_long(handle, CURLINFO_OS_ERRNO, &errno)
            return .couldNotConnect(refused: errno == Int(ECONNREFUSED))
        case CURLE_COULDNT_RESOLVE_HOST:
            return .couldNotResolve
        case CURLE_PEER_FAILED_VERIFICATION:
            var result = 0
            mdoc_curl_getinfo_long(handle, CURLINFO_SSL_VERIFYRESULT, &result)
            return .certificateRefused(chain: result != 0)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE:
            return .tlsFailed
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE,
            CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .connectionClosed
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .invalidRequest("the URL is not one libcurl takes")
        default:
            return .other(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))
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
        let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        headers.append((name, value))
    }

    fileprivate func open(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        if let filter = request.connectFilter {
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
