import FoundationEssentials
import MdocCrypto
import PrintableText
import TokenStatusList

/// Resolves a credential's ``StatusReference`` to its status: finds the Status List Token (a
/// token supplied offline, a cached copy, or one fetched over HTTPS), verifies it against the
/// trust anchors that authenticated the credential's issuer, and reads the entry.
///
/// - Fetches are https only (a status URI comes from a credential whose issuer is trusted, so
///   it may name any host, loopback included), bounded in time and size (``Limits``); the
///   TLS trust is the system store plus `--tls-ca`.
/// - A fetched token is cached by URI until its `exp` or `ttl`, whichever comes first; checks
///   of the same URI at the same time share one fetch.
/// - A token supplied offline (`--status-list FILE`) is used for the URI in its `sub` and is
///   never fetched again.
/// - Nothing throws: a list that cannot be fetched, verified or read gives
///   ``StatusCheck/unknown(reason:)`` with a printable reason.
public actor StatusListResolver {
    /// The bounds of every fetch and token.
    public struct Limits: Sendable {
        /// Connection and total time of a fetch (its size cap is `token.maximumTokenBytes`).
        public var connectTimeout: Duration
        public var requestTimeout: Duration
        /// Token and inflated list sizes.
        public var token: StatusListLimits

        public init(
            connectTimeout: Duration = .seconds(5), requestTimeout: Duration = .seconds(10),
            token: StatusListLimits = StatusListLimits()
        ) {
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.token = token
        }
    }

    /// A token read from a file given offline, before its use.
    public struct OfflineToken: Sendable {
        public let token: StatusListToken
        /// Where it came from, for messages (a file name).
        public let source: String

        /// Reads `bytes` as a CWT or a JWT (the form is recognized: a JWT starts with `ey`).
        public init(bytes: [UInt8], source: String, limits: StatusListLimits = StatusListLimits())
            throws(StatusListError)
        {
            let text = bytes.prefix(2)
            let format: StatusListFormat = text.elementsEqual(Array("ey".utf8)) ? .jwt : .cwt
            token = try StatusListToken(bytes: bytes, format: format, limits: limits)
            self.source = source
        }
    }

    private struct CacheEntry {
        let token: StatusListToken
        let fetchedAt: Date
        let until: Date
    }

    private let fetcher: HTTPFetcher
    private let limits: Limits
    private let clock: @Sendable () -> Date
    private let offline: [OfflineToken]
    private var cache: [String: CacheEntry] = [:]
    private var inFlight: [String: Task<Result<CacheEntry, StatusListFetchFailure>, Never>] = [:]
    /// How many HTTPS fetches were made (tests check the cache with it).
    public private(set) var fetchCount = 0

    /// - Parameters:
    ///   - tlsCAs: CA certificates trusted for HTTPS besides the system trust store (`--tls-ca`).
    ///   - limits: time and size bounds.
    ///   - offlineTokens: tokens supplied offline (`--status-list FILE`); used before any fetch.
    ///   - clock: the time the cache runs on.
    public init(
        tlsCAs: [Certificate] = [], limits: Limits = Limits(), offlineTokens: [OfflineToken] = [],
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws(HTTPFetchError) {
        let fetchLimits = HTTPFetcher.Limits(
            connectTimeout: limits.connectTimeout, requestTimeout: limits.requestTimeout,
            maximumResponseBytes: limits.token.maximumTokenBytes)
        fetcher = try HTTPFetcher(additionalTrustRoots: tlsCAs, limits: fetchLimits)
        self.limits = limits
        self.offline = offlineTokens
        self.clock = clock
    }

    /// The status `reference` points at, from a token of `format` (``StatusListFormat/cwt``
    /// for an mdoc, ``StatusListFormat/jwt`` for an SD-JWT VC) whose signer chains to
    /// `trustAnchors` (those that authenticated the credential's issuer), checked at `time`.
    public func check(
        _ reference: StatusReference, format: StatusListFormat, trustAnchors: [Certificate], at time: Date
    ) async -> StatusCheck {
        let found: (token: StatusListToken, checkedAt: Date)
        if let supplied = offline.first(where: { $0.token.subject == reference.uri && $0.token.format == format }) {
            found = (supplied.token, clock())
        } else {
            switch await cachedOrFetched(reference.uri, format: format) {
            case .success(let entry): found = (entry.token, entry.fetchedAt)
            case .failure(let failure): return .unknown(reason: failure.description)
            }
        }
        do throws(StatusListError) {
            try found.token.verify(uri: reference.uri, trustAnchors: trustAnchors, at: time)
            return .known(try found.token.statusList.status(at: reference.index), checkedAt: found.checkedAt)
        } catch {
            return .unknown(reason: RemoteText.printable(error.description, limit: 400))
        }
    }

    /// A copy still fresh in the cache, or a new fetch (shared with a fetch already under way).
    private func cachedOrFetched(_ uri: String, format: StatusListFormat) async
        -> Result<CacheEntry, StatusListFetchFailure>
    {
        let key = format.rawValue + " " + uri
        if let entry = cache[key], entry.until > clock() { return .success(entry) }
        cache[key] = nil
        if let running = inFlight[key] { return await running.value }
        fetchCount += 1
        let task = Task { [fetcher, limits, clock] in
            await Self.fetch(uri, format: format, fetcher: fetcher, limits: limits.token, clock: clock)
        }
        inFlight[key] = task
        let result = await task.value
        inFlight[key] = nil
        if case .success(let entry) = result, entry.until > clock() { cache[key] = entry }
        return result
    }

    /// Fetches and reads one token (not verified yet).
    private static func fetch(
        _ uri: String, format: StatusListFormat, fetcher: HTTPFetcher, limits: StatusListLimits,
        clock: @Sendable () -> Date
    ) async -> Result<CacheEntry, StatusListFetchFailure> {
        let response: HTTPResponse
        do throws(HTTPFetchError) {
            response = try await fetcher.get(uri, accept: format.mediaType)
        } catch {
            return .failure(.fetch(error))
        }
        guard response.isSuccess else { return .failure(.status(host: response.host, status: response.status)) }
        let fetchedAt = clock()
        do throws(StatusListError) {
            let token = try StatusListToken(bytes: response.body, format: format, limits: limits)
            return .success(
                CacheEntry(
                    token: token, fetchedAt: fetchedAt, until: token.cacheExpiry(fetchedAt: fetchedAt) ?? fetchedAt))
        } catch {
            return .failure(.token(error))
        }
    }
}

/// Why no Status List Token could be had.
enum StatusListFetchFailure: Error, Sendable, CustomStringConvertible {
    case fetch(HTTPFetchError)
    case status(host: String, status: Int)
    case token(StatusListError)

    var description: String {
        let text: String
        switch self {
        case .fetch(let error): text = "the status list cannot be fetched: \(error)"
        case .status(let host, let status): text = "the status list server \(host) answered HTTP \(status)"
        case .token(let error): text = error.description
        }
        return RemoteText.printable(text, limit: 400)
    }
}
