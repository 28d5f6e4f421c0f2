import AsyncHTTPClient
import Foundation
import MdocCrypto
import NIOCore
import NIOHTTP1
import NIOSSL

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

    public init(host: String, status: Int, contentType: String?, body: [UInt8], headers: [String: String] = [:]) {
        self.host = host
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
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
        case .failed(let host, let reason):
            return "the exchange with \(host) failed: \(reason)"
        }
    }
}

/// HTTPS GET and form POST over AsyncHTTPClient, for the OpenID4VP flow.
///
/// - TLS is always verified (full verification: chain and host name) against the system
///   trust store plus the ``Limits``' extra CA certificates (`--tls-ca`, for private
///   deployments and tests); TLS 1.2 at least.
/// - Only https URLs are fetched; redirects are not followed (a 3xx is an error).
/// - Bounded: a connect timeout, a deadline for the whole exchange (body included), a cap
///   on the answer's size; a failed connection is reported at once, not retried.
///
/// Call ``shutdown()`` once done (before the fetcher goes away).
public final class HTTPFetcher: Sendable {
    /// The bounds of every exchange.
    public struct Limits: Sendable {
        /// Time to establish the TCP connection.
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
    }

    /// The `User-Agent` sent.
    public static let userAgent = "mdoc-holder"

    public let limits: Limits
    private let client: HTTPClient

    /// - Parameters:
    ///   - additionalTrustRoots: CA certificates trusted besides the system trust store.
    ///   - limits: timeouts and the answer size cap.
    /// - Throws: ``HTTPFetchError/failed(host:reason:)`` when a certificate cannot be loaded.
    public init(additionalTrustRoots: [Certificate] = [], limits: Limits = Limits()) throws(HTTPFetchError) {
        self.limits = limits
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        tls.minimumTLSVersion = .tlsv12
        tls.trustRoots = .default
        // Closing waits this long for the server's close_notify (NIOSSL's default is 5 s): a
        // server that timed out must not hold the holder up on the way out.
        tls.shutdownTimeout = .seconds(1)
        if !additionalTrustRoots.isEmpty {
            var certificates: [NIOSSLCertificate] = []
            for certificate in additionalTrustRoots {
                do {
                    certificates.append(try NIOSSLCertificate(bytes: certificate.der, format: .der))
                } catch {
                    throw .failed(host: "-", reason: "a TLS CA certificate cannot be loaded")
                }
            }
            tls.additionalTrustRoots = [.certificates(certificates)]
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(
                connect: Self.timeAmount(limits.connectTimeout), read: Self.timeAmount(limits.requestTimeout)),
            decompression: .disabled)
        // Report a failed connection (refused, TLS) at once instead of retrying until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Closes the connections. Call once, when done.
    public func shutdown() async {
        try? await client.shutdown()
    }

    /// GET `url` with `Accept: accept`.
    public func get(_ url: String, accept: String) async throws(HTTPFetchError) -> HTTPResponse {
        try await exchange(url, method: .GET, headers: [("Accept", accept)], body: nil)
    }

    /// POST a form body (`application/x-www-form-urlencoded`) to `url`.
    ///
    /// - Parameters:
    ///   - form: the encoded body.
    ///   - accept: the `Accept` header, if any.
    public func postForm(_ url: String, form: String, accept: String? = nil) async throws(HTTPFetchError)
        -> HTTPResponse
    {
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let accept { headers.append(("Accept", accept)) }
        return try await exchange(url, method: .POST, headers: headers, body: Array(form.utf8))
    }

    /// Sends `body` (if any) with `method` and `headers` to `url`; the answer keeps its headers
    /// (OpenID4VCI reads `DPoP-Nonce` and `WWW-Authenticate`). Header values are never
    /// logged or put in errors.
    public func send(_ url: String, method: String, headers: [(String, String)], body: [UInt8]?)
        async throws(HTTPFetchError) -> HTTPResponse
    {
        try await exchange(url, method: HTTPMethod(rawValue: method), headers: headers, body: body)
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

    private func exchange(_ url: String, method: HTTPMethod, headers: [(String, String)], body: [UInt8]?)
        async throws(HTTPFetchError) -> HTTPResponse
    {
        let host = try Self.checkedHost(url)
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "User-Agent", value: Self.userAgent)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let deadline = NIODeadline.now() + Self.timeAmount(limits.requestTimeout)
        do {
            let response = try await client.execute(request, deadline: deadline)
            let status = Int(response.status.code)
            if (300..<400).contains(status) {
                throw HTTPFetchError.redirectRefused(host: host, status: status)
            }
            let contentType = response.headers.first(name: "Content-Type").map {
                String($0.split(separator: ";", maxSplits: 1)[0]).trimmingCharacters(in: .whitespaces).lowercased()
            }
            let buffer = try await response.body.collect(upTo: limits.maximumResponseBytes)
            var headers: [String: String] = [:]
            for (name, value) in response.headers { headers[name.lowercased()] = value }
            return HTTPResponse(
                host: host, status: status, contentType: contentType, body: Array(buffer.readableBytesView),
                headers: headers)
        } catch {
            throw Self.classify(error, host: host, limits: limits)
        }
    }

    /// Maps the errors of NIO, NIOSSL and AsyncHTTPClient to ``HTTPFetchError``.
    static func classify(_ error: any Error, host: String, limits: Limits) -> HTTPFetchError {
        if let error = error as? HTTPFetchError { return error }
        let seconds = Int(limits.requestTimeout.components.seconds)
        if error is NIOTooManyBytesError {
            return .responseTooLarge(host: host, limit: limits.maximumResponseBytes)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout:
                return .timedOut(host: host, seconds: Int(limits.connectTimeout.components.seconds))
            case .deadlineExceeded, .readTimeout, .writeTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return .timedOut(host: host, seconds: seconds)
            case .remoteConnectionClosed:
                return .failed(host: host, reason: "the server closed the connection")
            case .invalidURL, .emptyHost, .emptyScheme:
                return .invalidURL
            default:
                return .failed(host: host, reason: error.description)
            }
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return .tlsFailed(host: host, reason: "the server certificate does not name \(host)")
        }
        if let error = error as? NIOSSLError {
            let text = String(describing: error)
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                return .tlsFailed(
                    host: host,
                    reason:
                        "the server certificate does not chain to a trusted CA (the system trust store or --tls-ca)")
            }
            return .tlsFailed(host: host, reason: "the handshake failed")
        }
        if error is BoringSSLError {
            return .tlsFailed(host: host, reason: "the handshake failed")
        }
        let text = String(describing: error)
        if text.contains("Connection refused") || text.contains("errno: 111") {
            return .connectionFailed(host: host, reason: "connection refused")
        }
        if text.contains("NIOConnectionError") || error is IOError {
            return .connectionFailed(host: host, reason: "no connection could be made")
        }
        if error is CancellationError {
            return .failed(host: host, reason: "cancelled")
        }
        return .failed(host: host, reason: String(describing: type(of: error)))
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
