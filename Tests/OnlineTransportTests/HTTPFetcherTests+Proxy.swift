import Curl
import Foundation
import JOSE
import Testing

@testable import OnlineTransport

/// The loopback CONNECT proxy of the tests (Tests/Support/connect_proxy.py) under the test
/// venv's Python: it logs every request it gets (the CONNECT target, its answer).
final class LoopbackProxy: @unchecked Sendable {
    // Set once in init; the process is only terminated by stop().
    let process: Process
    let directory: URL
    let port: Int

    var url: String { "http://127.0.0.1:\(port)" }

    /// `mode`: tunnel (relays bytes), mitm (terminates TLS with its own certificate), deny (403).
    init(mode: String = "tunnel") async throws {
        let python = LoopbackVerifier.repository.appendingPathComponent(".venv-test/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw LoopbackVerifierError("the test venv is missing (\(python)): run `make test-deps`")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("connect-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ready = directory.appendingPathComponent("ready.json")
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            LoopbackVerifier.repository.appendingPathComponent("Tests/Support/connect_proxy.py").path,
            "--log", directory.appendingPathComponent("log.jsonl").path, "--ready-file", ready.path,
            "--mode", mode, "--lifetime", "120",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard let port = try await readyObject(at: ready, of: process, seconds: 20)?["port"]?.intValue else {
            if process.isRunning { process.terminate() }
            throw LoopbackVerifierError("the test proxy did not start")
        }
        self.port = port
    }

    /// What the proxy logged, one object per line.
    func entries() -> [[String: JSONValue]] {
        let data = FileManager.default.contents(atPath: directory.appendingPathComponent("log.jsonl").path) ?? Data()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONValue(parsing: Array($0.utf8)).objectValue
        }
    }

    /// The targets of the CONNECT requests it got.
    func connectTargets() -> [String] {
        entries().filter { $0["method"]?.stringValue == "CONNECT" }.compactMap { $0["target"]?.stringValue }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `body` with a proxy in `mode` and the loopback verifier, stopping both after it.
    static func with(
        mode: String = "tunnel", _ body: (LoopbackProxy, LoopbackVerifier) async throws -> Void
    ) async throws {
        let proxy = try await LoopbackProxy(mode: mode)
        defer { proxy.stop() }
        try await LoopbackVerifier.with { verifier in try await body(proxy, verifier) }
    }
}

extension HTTPFetcherTests {
    /// A fetcher that trusts the verifier's CA and goes through `proxy`.
    static func fetcher(_ verifier: LoopbackVerifier, proxy: CurlProxy?) -> HTTPFetcher {
        HTTPFetcher(
            additionalTrustRoots: [verifier.ca], limits: HTTPFetcher.Limits(requestTimeout: .seconds(20)),
            systemCAPath: "/etc/ssl/certs", proxy: proxy)
    }

    @Test("through https_proxy every exchange is a CONNECT tunnel to the checked address, TLS end to end")
    func throughProxy() async throws {
        try await LoopbackProxy.with { (proxy: LoopbackProxy, verifier: LoopbackVerifier) async throws -> Void in
            // With and without a scheme (curl takes host:port as an http proxy).
            for url in [proxy.url, "127.0.0.1:\(proxy.port)"] {
                let fetcher = Self.fetcher(verifier, proxy: CurlProxy(url: url, noProxy: "example.com"))
                let answer = try await fetcher.get(verifier.base + "/done", accept: "*/*")
                #expect(answer.status == 200)
                // The endpoint's address, not the proxy's (both on loopback here: the port tells).
                #expect(answer.remoteAddress == IPAddress("127.0.0.1"))
                let posted = try await fetcher.postForm(verifier.base + "/start", form: "kind=signed&delivery=post")
                #expect(posted.status == 200)
            }
            // "localhost" was resolved by the holder: the proxy was asked for the address itself.
            #expect(proxy.connectTargets() == Array(repeating: "127.0.0.1:\(verifier.port)", count: 4))
            #expect(proxy.entries().allSatisfy { $0["status"]?.intValue == 200 })
        }
    }

    @Test("a proxy that presents its own certificate (terminates TLS) is refused, nothing sent through it")
    func interceptingProxy() async throws {
        try await LoopbackProxy.with(mode: "mitm") {
            (proxy: LoopbackProxy, verifier: LoopbackVerifier) async throws -> Void in
            let fetcher = Self.fetcher(verifier, proxy: CurlProxy(url: proxy.url))
            await #expect {
                _ = try await fetcher.postForm(verifier.base + "/start", form: "secret=value")
            } throws: { error in
                guard case .tlsFailed(let host, let reason) = error as? HTTPFetchError else { return false }
                return host == "localhost" && reason.contains("does not chain to a trusted CA")
            }
            #expect(proxy.connectTargets() == ["127.0.0.1:\(verifier.port)"])
            #expect(!proxy.entries().contains { $0["mitm"] != nil }, "\(proxy.entries())")
        }
    }

    @Test("no_proxy bypasses the proxy for the hosts it names, by curl's rules")
    func noProxyBypass() async throws {
        try await LoopbackProxy.with { (proxy: LoopbackProxy, verifier: LoopbackVerifier) async throws -> Void in
            for (noProxy, url) in [
                ("example.com, LOCALHOST", verifier.base + "/done"),
                ("*", verifier.base + "/done"),
                ("example.com\t127.0.0.0/8", "https://127.0.0.1:\(verifier.port)/done"),
            ] {
                let fetcher = Self.fetcher(verifier, proxy: CurlProxy(url: proxy.url, noProxy: noProxy))
                #expect(try await fetcher.get(url, accept: "*/*").status == 200)
            }
            #expect(proxy.entries().isEmpty)
            // Not a suffix at a label boundary: through the proxy.
            let fetcher = Self.fetcher(verifier, proxy: CurlProxy(url: proxy.url, noProxy: "alhost,127.0.0.2"))
            #expect(try await fetcher.get(verifier.base + "/done", accept: "*/*").status == 200)
            #expect(try await fetcher.get("https://127.0.0.1:\(verifier.port)/done", accept: "*/*").status == 200)
            #expect(proxy.connectTargets().count == 2)
        }
    }

    @Test("through the proxy the endpoint policy still refuses, with the same message, and no CONNECT is sent")
    func policyThroughProxy() async throws {
        try await LoopbackProxy.with { (proxy: LoopbackProxy, verifier: LoopbackVerifier) async throws -> Void in
            let publicParty = EndpointPolicy(namedBy: "the issuer", partyAddress: IPAddress("198.51.100.10"))
            let direct = Self.fetcher(verifier, proxy: nil)
            let proxied = Self.fetcher(verifier, proxy: CurlProxy(url: proxy.url))
            for url in ["https://127.0.0.1:\(verifier.port)/done", verifier.base + "/done"] {
                var messages: [String] = []
                for fetcher in [direct, proxied] {
                    do {
                        _ = try await fetcher.get(url, accept: "*/*", policy: publicParty)
                        Issue.record("\(url) was fetched")
                    } catch {
                        let failure = error as Error
                        guard case .addressRefused(_, let reason) = failure as? HTTPFetchError else {
                            Issue.record("\(failure)")
                            continue
                        }
                        #expect(reason.contains(", a loopback address; endpoints named by the issuer"))
                        messages.append("\(failure)")
                    }
                }
                #expect(messages.count == 2 && messages[0] == messages[1], "\(messages)")
            }
            #expect(proxy.entries().isEmpty)
            // The party's own class is allowed through the proxy too.
            let loopbackParty = EndpointPolicy(namedBy: "the issuer", partyAddress: IPAddress("127.0.0.1"))
            #expect(try await proxied.get(verifier.base + "/done", accept: "*/*", policy: loopbackParty).status == 200)
            #expect(proxy.connectTargets() == ["127.0.0.1:\(verifier.port)"])
        }
    }

    @Test("a proxy that is down, refuses the tunnel or cannot reach the endpoint is named in the error")
    func proxyFailures() async throws {
        try await LoopbackVerifier.with { verifier in
            let down = try Self.freePort()
            let unreachable = Self.fetcher(verifier, proxy: CurlProxy(url: "http://user:secret@127.0.0.1:\(down)"))
            await #expect {
                _ = try await unreachable.get(verifier.base + "/done", accept: "*/*")
            } throws: { error in
                guard case .connectionFailed(let host, let reason) = error as? HTTPFetchError else { return false }
                return host == "localhost"
                    && reason == "through the proxy 127.0.0.1:\(down): no connection could be made to it"
                    && !"\(error)".contains("secret")
            }
            let socks = Self.fetcher(verifier, proxy: CurlProxy(url: "socks5://127.0.0.1:1080"))
            await #expect {
                _ = try await socks.get(verifier.base + "/done", accept: "*/*")
            } throws: { error in
                guard case .failed(_, let reason) = error as? HTTPFetchError else { return false }
                return reason.contains("not an http:// proxy")
            }
        }
        try await LoopbackProxy.with(mode: "deny") {
            (proxy: LoopbackProxy, verifier: LoopbackVerifier) async throws -> Void in
            let fetcher = Self.fetcher(verifier, proxy: CurlProxy(url: proxy.url))
            await #expect {
                _ = try await fetcher.get(verifier.base + "/done", accept: "*/*")
            } throws: { error in
                guard case .connectionFailed(_, let reason) = error as? HTTPFetchError else { return false }
                return reason
                    == "through the proxy 127.0.0.1:\(proxy.port): it answered the tunnel request with HTTP 403"
            }
            // localhost is 127.0.0.1 and ::1 (as libcurl has it): each address tried in turn.
            #expect(proxy.connectTargets() == ["127.0.0.1:\(verifier.port)", "[::1]:\(verifier.port)"])
        }
        try await LoopbackProxy.with { (proxy: LoopbackProxy, verifier: LoopbackVerifier) async throws -> Void in
            let closed = try Self.freePort()
            let fetcher = Self.fetcher(verifier, proxy: CurlProxy(url: proxy.url))
            await #expect {
                _ = try await fetcher.get("https://127.0.0.1:\(closed)/", accept: "*/*")
            } throws: { error in
                guard case .connectionFailed(_, let reason) = error as? HTTPFetchError else { return false }
                return reason.hasSuffix("it answered the tunnel request with HTTP 502")
            }
            // An IPv6 literal: in brackets in the CONNECT request.
            await #expect {
                _ = try await fetcher.get("https://[::1]:\(closed)/", accept: "*/*")
            } throws: { error in
                guard case .connectionFailed(let host, let reason) = error as? HTTPFetchError else { return false }
                return host == "[::1]" && reason.hasSuffix("it answered the tunnel request with HTTP 502")
            }
            #expect(proxy.connectTargets() == ["127.0.0.1:\(closed)", "[::1]:\(closed)"])
        }
    }

    @Test("https_proxy, HTTPS_PROXY, no_proxy and NO_PROXY are read as curl reads them")
    func proxyEnvironment() {
        #expect(CurlProxy.fromEnvironment([:]) == nil)
        #expect(CurlProxy.fromEnvironment(["http_proxy": "http://p:3128", "all_proxy": "http://p:3128"]) == nil)
        #expect(CurlProxy.fromEnvironment(["HTTPS_PROXY": "http://p:3128"]) == CurlProxy(url: "http://p:3128"))
        #expect(
            CurlProxy.fromEnvironment(["https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2", "NO_PROXY": "x"])
                == CurlProxy(url: "http://a:1", noProxy: "x"))
        // Set but empty: no proxy, the uppercase one not consulted.
        #expect(CurlProxy.fromEnvironment(["https_proxy": "", "HTTPS_PROXY": "http://b:2"]) == nil)
        #expect(
            CurlProxy.fromEnvironment(["https_proxy": "p:8080", "no_proxy": "a", "NO_PROXY": "b"])
                == CurlProxy(url: "p:8080", noProxy: "a"))
        #expect(CurlProxy(url: "http://user:pw@proxy.corp:3128").displayName == "proxy.corp:3128")
        #expect(CurlProxy(url: "proxy.corp").displayName == "proxy.corp:1080")
        #expect(CurlProxy(url: "http://[fd00::1]:3128").displayName == "[fd00::1]:3128")
        #expect(CurlProxy(url: "https://proxy.corp:3128").authority == nil)
    }

    static let bypassCases: [(String, String, Bool)] = [
        ("*", "anything.example", true), ("*.example.com", "www.example.com", false),
        ("example.com", "example.com", true), ("example.com", "www.example.com", true),
        (".example.com", "www.example.com", true), (".example.com", "example.com", true),
        ("example.com", "nonexample.com", false), ("Example.COM.", "www.example.com.", true),
        ("a.test, example.com", "example.com", true), ("a.test example.com", "example.com", true),
        ("a.test,,example.com", "example.com", true), ("", "example.com", false),
        ("10.0.0.0/8", "10.1.2.3", true), ("10.0.0.0/8", "11.1.2.3", false), ("10.1.2.3", "10.1.2.3", true),
        ("10.1.2.3", "10.1.2.4", false), ("192.168.1.0/24", "192.168.1.77", true),
        ("192.168.1.0/24", "192.168.2.1", false), ("localhost", "127.0.0.1", false),
        ("127.0.0.1", "localhost", false), ("::1", "[::1]", true), ("fd00::/8", "[fd12::5]", true),
        ("fd00::/8", "[fe80::1]", false), ("10.0.0.0/8", "[::ffff:10.0.0.1]", false),
        ("10.0.0.0/33", "10.0.0.1", false),
    ]

    @Test("no_proxy matching", arguments: bypassCases)
    func noProxyMatching(_ entry: (String, String, Bool)) {
        #expect(CurlProxy(url: "http://p:1", noProxy: entry.0).bypasses(host: entry.1) == entry.2)
    }
}
