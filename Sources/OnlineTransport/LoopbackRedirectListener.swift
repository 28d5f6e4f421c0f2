import NIOCore
import NIOHTTP1
import NIOPosix

/// Where a headless holder receives the authorization redirect (RFC 8252 section 7.3): an
/// HTTP listener on 127.0.0.1 at a random port (or a given one), for one request to its path;
/// it answers that request and closes. Other paths get 404 and do not count.
///
/// The redirect's query holds the authorization code: it is handed to the flow, never logged.
public final class LoopbackRedirectListener: Sendable {
    public let port: Int
    public let path: String
    private let channel: any Channel
    private let received: EventLoopPromise<String>

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
        let group = MultiThreadedEventLoopGroup.singleton
        let received = group.next().makePromise(of: String.self)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 4)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { child in
                    child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try child.pipeline.syncOperations.addHandler(RedirectHandler(path: path, received: received))
                    }
                }
                .bind(host: "127.0.0.1", port: port).get()
            guard let bound = channel.localAddress?.port else {
                throw HTTPFetchError.failed(host: "127.0.0.1", reason: "the listener has no port")
            }
            return LoopbackRedirectListener(port: bound, path: path, channel: channel, received: received)
        } catch let error as HTTPFetchError {
            received.fail(error)
            throw error
        } catch {
            received.fail(error)
            throw .connectionFailed(host: "127.0.0.1", reason: "cannot listen for the redirect: \(error)")
        }
    }

    private init(port: Int, path: String, channel: any Channel, received: EventLoopPromise<String>) {
        self.port = port
        self.path = path
        self.channel = channel
        self.received = received
    }

    /// The query of the first request to ``path`` (without `?`), within `timeout`; the
    /// listener is closed afterwards either way.
    public func waitForRedirect(timeout: Duration) async throws(HTTPFetchError) -> String {
        let future = received.futureResult
        let timer = channel.eventLoop.scheduleTask(in: .seconds(timeout.components.seconds)) {
            self.received.fail(HTTPFetchError.timedOut(host: "127.0.0.1", seconds: Int(timeout.components.seconds)))
        }
        defer { timer.cancel() }
        do {
            let target = try await future.get()
            await close()
            guard let question = target.firstIndex(of: "?") else { return "" }
            return String(target[target.index(after: question)...])
        } catch {
            await close()
            throw (error as? HTTPFetchError) ?? .failed(host: "127.0.0.1", reason: "the redirect listener failed")
        }
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
        received.fail(HTTPFetchError.failed(host: "127.0.0.1", reason: "closed"))
        try? await channel.close()
    }
}

/// Answers one request to the redirect path: hands its target to the flow, replies with a short
/// page, closes the connection.
private final class RedirectHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let path: String
    let received: EventLoopPromise<String>
    private var target: String?

    init(path: String, received: EventLoopPromise<String>) {
        self.path = path
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            target = head.method == .GET ? head.uri : nil
        case .body:
            break
        case .end:
            let requestPath = target.map { String($0.split(separator: "?", maxSplits: 1).first ?? "") }
            let matches = requestPath == path
            let text = matches ? LoopbackRedirectListener.page(target ?? "") : "Not found.\n"
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: String(text.utf8.count))
            headers.add(name: "Connection", value: "close")
            headers.add(name: "Cache-Control", value: "no-store")
            let head = HTTPResponseHead(version: .http1_1, status: matches ? .ok : .notFound, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            if matches, let target { received.succeed(target) }
            target = nil
        }
    }
}
