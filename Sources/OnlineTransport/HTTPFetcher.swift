import Curl
import FoundationEssentials
import MdocCrypto
import PrintableText

/// A response as the online flow reads it: the status, the media type and at most
/// ``HTTPFetcher/Limits/maximumResponseBytes`` of body.
public struct HTTPResponse: Sendable {
    /// The host that answered (for messages).
    public let host: String
    public let status: Int
    /// `Content-Type` without parameters, lowercased.
    public let contentType: String?
    public let body: [UInt8]
    /// The response headers, names lowercased (the last of a repeated header).
    public let headers: [String: String]
    /// The address the answer came from (the address connected to; through a proxy, the
    /// endpoint's address the tunnel was opened to).
    public let remoteAddress: IPAddress?

    public init(
        host: String, status: Int, contentType: String?, body: [UInt8], headers: [String: String] = [:],
        remoteAddress: IPAddress? = nil
    ) {
        self.host = host
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
        self.remoteAddress = remoteAddress
    }

    /// 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// Why an HTTPS exchange failed. Messages name the host and what went wrong, never a body,
/// a query or a form value.
public enum HTTPFetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a URL this client can use.
    case invalidURL
    /// Anything but https: there is no plain-http mode.
    case notHTTPS(scheme: String)
    /// The TCP connection could not be made (refused, unreachable, name not found).
    case connectionFailed(host: String, reason: String)
    /// The TLS handshake failed: most often a certificate that does not chain to the system
    /// trust store or a `--tls-ca`, or that does not name the host.
    case tlsFailed(host: String, reason: String)
    /// No connection or no complete answer in time.
    case timedOut(host: String, seconds: Int)
    /// The answer was larger than the limit.
    case responseTooLarge(host: String, limit: Int)
    /// The server answered with a redirect; redirects are not followed.
    case redirectRefused(host: String, status: Int)
    /// The endpoint's address is one the exchange's ``EndpointPolicy`` refuses; nothing was
    /// connected to.
    case addressRefused(host: String, reason: String)
    /// Another failure of the exchange.
    case failed(host: String, reason: String)

    public var description: String {
        switch self {
        case .invalidURL:
            return "the URL is not a valid https URL"
        case .notHTTPS(let scheme):
            return "refusing a \(scheme) URL: only https is used"
        case .connectionFailed(let host, let reason):
            return "cannot connect to \(host): \(reason)"
        case .tlsFailed(let host, let reason):
            return "TLS with \(host) failed: \(reason)"
        case .timedOut(let host, let seconds):
            return "\(host) did not answer within \(seconds) s"
        case .responseTooLarge(let host, let limit):
            return "the answer of \(host) is larger than \(limit) bytes"
        case .redirectRefused(let host, let status):
            return "\(host) answered with a redirect (HTTP \(status)), which is not followed"
        case .addressRefused(let host, let reason):
            return "refusing to connect to \(host): \(reason)"
        case .failed(let host, let reason):
            return "the exchange with \(host) failed: \(reason)"
        }
    }
}

/// HTTPS GET and POST over libcurl (the `Curl` target), for the OpenID4VP and OpenID4VCI
/// flows.
///
/// - TLS is always verified (chain and host name) against the system trust store
///   (/etc/ssl/certs) plus the extra CA certificates given (`--tls-ca`, for private
///   deployments and tests); TLS 1.2 at least; the system's OpenSSL 3.
/// - Only https URLs are fetched; redirects are not followed (a 3xx is an error).
/// - Bounded: a connect timeout, a deadline for the whole exchange (connection, TLS, request
///   and the complete answer: a server that trickles its body is cut off at the deadline), a
///   cap on the answer's size; a failed connection is reported at once, not retried.
/// - Each exchange may carry an ``EndpointPolicy``: the address about to be connected to is
///   checked first, and refused (no connection attempted) when the policy says so.
/// - `https_proxy` / `HTTPS_PROXY` (an http:// proxy) is used through an HTTP CONNECT tunnel,
///   TLS still end to end with the endpoint, except for the hosts `no_proxy` / `NO_PROXY`
///   names (curl's rules, ``CurlProxy``). The policy still holds: the endpoint's name is
///   resolved here, each address checked, and the tunnel opened to the checked address
///   itself; the proxy's own address is the operator's choice and is not checked.
///
/// Every exchange has its own connection: there is nothing to close afterwards.
public final class HTTPFetcher: Sendable {
    /// The bounds of every exchange.
    public struct Limits: Sendable {
        /// Time to establish the TCP connection and the TLS session.
        public var connectTimeout: Duration
        /// Time for the whole exchange: connection, TLS, request, the complete answer.
        public var requestTimeout: Duration
        /// The largest answer read.
        public var maximumResponseBytes: Int

        public init(
            connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30),
            maximumResponseBytes: Int = 1 << 20
        ) {
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.maximumResponseBytes = maximumResponseBytes
        }

        /// The default limits with `--http-timeout SECONDS` (nil: 30 s) as the deadline of
        /// every exchange; the connect timeout is never longer than that.
        public static func deadline(seconds: Int?) -> Limits {
            guard let seconds, seconds > 0 else { return Limits() }
            return Limits(connectTimeout: .seconds(min(10, seconds)), requestTimeout: .seconds(seconds))
        }
    }

    /// The `User-Agent` sent.
    public static let userAgent = "mdoc-holder"

    public let limits: Limits
    /// The extra CA certificates, PEM (nil: the system trust store alone).
    private let additionalCAsPEM: [UInt8]?
    /// The system trust store's directory (tests point it elsewhere).
    let systemCAPath: String
    /// The proxy (nil: none), from the environment unless a test gives one.
    let proxy: CurlProxy?

    /// - Parameters:
    ///   - additionalTrustRoots: CA certificates trusted besides the system trust store.
    ///   - limits: timeouts and the answer size cap.
    public convenience init(additionalTrustRoots: [Certificate] = [], limits: Limits = Limits()) throws(HTTPFetchError)
    {
        self.init(
            additionalTrustRoots: additionalTrustRoots, limits: limits, systemCAPath: "/etc/ssl/certs",
            proxy: CurlProxy.fromEnvironment())
    }

    init(
        additionalTrustRoots: [Certificate], limits: Limits, systemCAPath: String, proxy: CurlProxy?
    ) {
        self.limits = limits
        self.systemCAPath = systemCAPath
        self.proxy = proxy
        additionalCAsPEM =
            additionalTrustRoots.isEmpty ? nil : Array(additionalTrustRoots.map(Self.pem).joined().utf8)
    }

    /// GET `url` with `Accept: accept`; `policy`: the addresses it may connect to.
    public func get(_ url: String, accept: String, policy: EndpointPolicy = .unrestricted) async throws(HTTPFetchError)
        -> HTTPResponse
    {
        try await exchange(url, method: "GET", headers: [("Accept", accept)], body: nil, policy: policy)
    }

    /// POST a form body (`application/x-www-form-urlencoded`) to `url`.
    ///
    /// - Parameters:
    ///   - form: the encoded body.
    ///   - accept: the `Accept` header, if any.
    ///   - policy: the addresses it may connect to.
    public func postForm(
        _ url: String, form: String, accept: String? = nil, policy: EndpointPolicy = .unrestricted
    ) async throws(HTTPFetchError) -> HTTPResponse {
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let accept { headers.append(("Accept", accept)) }
        return try await exchange(url, method: "POST", headers: headers, body: Array(form.utf8), policy: policy)
    }

    /// Sends `body` (if any) with `method` and `headers` to `url`; the answer keeps its headers
    /// (OpenID4VCI reads `DPoP-Nonce` and `WWW-Authenticate`). Header values are never
    /// logged or put in errors; one carrying a line break is refused.
    public func send(
        _ url: String, method: String, headers: [(String, String)], body: [UInt8]?,
        policy: EndpointPolicy = .unrestricted
    ) async throws(HTTPFetchError) -> HTTPResponse {
        try await exchange(url, method: method, headers: headers, body: body, policy: policy)
    }

    /// Checks that `url` is an https URL with a host; returns the host.
    public static func checkedHost(_ url: String) throws(HTTPFetchError) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw .invalidURL
        }
        guard scheme == "https" else { throw .notHTTPS(scheme: scheme) }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL }
        return host
    }

    private func exchange(
        _ url: String, method: String, headers: [(String, String)], body: [UInt8]?, policy: EndpointPolicy
    ) async throws(HTTPFetchError) -> HTTPResponse {
        let host = try Self.checkedHost(url)
        var filter: (@Sendable (IPAddress) -> String?)?
        if policy.allowed != nil {
            filter = { @Sendable address in policy.refusal(address) }
        }
        let request = CurlRequest(
            url: url, method: method, headers: [("User-Agent", Self.userAgent)] + headers, body: body,
            timeout: limits.requestTimeout, connectTimeout: min(limits.connectTimeout, limits.requestTimeout),
            maximumResponseBytes: limits.maximumResponseBytes, additionalCAsPEM: additionalCAsPEM,
            systemCAPath: systemCAPath, connectFilter: filter, proxy: proxy)
        let response: CurlResponse
        do {
            response = try await Curl.perform(request)
        } catch {
            throw Self.classify(error, host: host, limits: limits)
        }
        if (300..<400).contains(response.status) {
            throw HTTPFetchError.redirectRefused(host: host, status: response.status)
        }
        var headers: [String: String] = [:]
        for (name, value) in response.headers { headers[name.lowercased()] = value }
        let contentType = headers["content-type"].map {
            String($0.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0])
                .trimmingBlanks().lowercased()
        }
        return HTTPResponse(
            host: host, status: response.status, contentType: contentType, body: response.body, headers: headers,
            remoteAddress: response.remoteAddress)
    }

    /// Maps libcurl's failures to ``HTTPFetchError``.
    static func classify(_ error: CurlFailure, host: String, limits: Limits) -> HTTPFetchError {
        switch error {
        case .invalidRequest(let reason):
            return .failed(host: host, reason: reason)
        case .addressRefused(_, let reason):
            return .addressRefused(host: host, reason: reason)
        case .timedOut(let connected):
            let deadline = connected ? limits.requestTimeout : min(limits.connectTimeout, limits.requestTimeout)
            return .timedOut(host: host, seconds: Int(deadline.components.seconds))
        case .tooLarge:
            return .responseTooLarge(host: host, limit: limits.maximumResponseBytes)
        case .cancelled:
            return .failed(host: host, reason: "cancelled")
        case .couldNotResolve:
            return .connectionFailed(host: host, reason: "the name cannot be resolved")
        case .couldNotConnect(let refused):
            return .connectionFailed(host: host, reason: refused ? "connection refused" : "no connection could be made")
        case .proxyFailed(let proxy, let reason):
            return .connectionFailed(host: host, reason: "through the proxy \(proxy): \(reason)")
        case .certificateRefused(let chain):
            return .tlsFailed(
                host: host,
                reason: chain
                    ? "the server certificate does not chain to a trusted CA (the system trust store or --tls-ca)"
                    : "the server certificate does not name \(host)")
        case .tlsFailed:
            return .tlsFailed(host: host, reason: "the handshake failed")
        case .connectionClosed:
            return .failed(host: host, reason: "the server closed the connection")
        case .other(_, let message):
            return .failed(host: host, reason: message)
        case .libraryUnavailable(let reason):
            return .connectionFailed(host: host, reason: reason)
        }
    }

    /// A certificate as PEM.
    private static func pem(_ certificate: Certificate) -> String {
        let base64 = Data(certificate.der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }
}
