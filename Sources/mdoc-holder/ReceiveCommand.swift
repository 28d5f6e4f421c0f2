import ArgumentParser
import CommandLineSupport
import Consent
import FoundationEssentials
import HolderRuntime
import MdocCrypto
import OnlineFlows
import OnlineTransport
import OpenID4VCI
import PrintableText
import QRCode
import SecureArea
import Wallet

/// `mdoc-holder credentials receive OFFER`: receives credentials from an OpenID4VCI 1.0 issuer
/// (the content of its QR code or link) into the store, after consent.
struct ReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Receive credentials from an OpenID4VCI issuer (the offer of its QR code or link).",
        discussion: """
            OFFER is an OpenID4VCI 1.0 credential offer as a QR code or link carries it: \
            openid-credential-offer://?credential_offer=... (by value), ?credential_offer_uri=... (by reference, \
            fetched with GET), or an https URL with either parameter. The holder fetches the issuer's metadata \
            and its authorization server's, shows who issues what (the issuer's name and TLS host, the credential \
            and its claims) and asks for consent before anything is requested. It then uses the offer's \
            pre-authorized code (with the transaction code when the offer asks for one: --tx-code-file, or typed \
            on the terminal without echo), or the authorization code flow (PKCE, a pushed authorization request \
            when the server offers it): it prints "open: URL" on standard error and the URL as a QR code, and \
            receives the browser's redirect on a loopback listener (127.0.0.1, one request). It proves new keys \
            made in --secure-area, and checks every credential \
            received as an import is checked (issuer data authentication against --trust-anchor, validity, \
            docType, the key proved) before storing it; all copies or none. DPoP is used when the authorization \
            server supports it. The issuer is notified of the result when it asks for notifications.

            HTTPS only, verified against the system trust store and any --tls-ca; through the proxy \
            https_proxy names (an HTTP CONNECT tunnel, TLS end to end) unless no_proxy lists the host. \
            Prints the new credential IDs. When the issuer defers issuance, it is polled at the issuer's \
            interval for up to --wait seconds, \
            then kept pending in the store (credentials list shows it); --pending resumes the pending ones. \
            Exits 0 when credentials were stored or kept pending, 1 when declined, refused or failed (the message \
            says what happened and what to do), 2 on bad input.
            """)

    @Argument(help: ArgumentHelp("The credential offer URL (not with --pending).", valueName: "offer"))
    var offer: String?

    @Option(
        help: ArgumentHelp(
            "When the issuer defers issuance, poll it (at its interval) for up to this many seconds; then keep it pending in the store (default 30).",
            valueName: "seconds"))
    var wait: Int = 30

    @Flag(
        help:
            "Resume the pending deferred issuances of the store (polled for up to --wait seconds) instead of an offer.")
    var pending = false

    @Option(
        help: ArgumentHelp(
            "File whose first line is the transaction code the issuer sent separately (- for standard input). Without it the code is asked on the terminal.",
            valueName: "file"))
    var txCodeFile: String?

    @Option(
        name: .customLong("trust-anchor"),
        help: ArgumentHelp(
            "IACA certificate (PEM or DER) received credentials must chain to; repeat for more.", valueName: "pem"))
    var trustAnchors: [String] = []

    @OptionGroup var vical: VICALOptions

    @OptionGroup var https: HTTPSOptions

    @Option(
        help: ArgumentHelp(
            "Ask for N copies of each credential, each bound to its own new key (up to the issuer's batch_size); a presentation uses a copy not shown before while one is left.",
            valueName: "n"))
    var batch: Int = 1

    @Option(
        help: ArgumentHelp(
            "Authorization code flow: the redirect URI to register, a loopback http://127.0.0.1:PORT/PATH the holder listens on (for deployments that relay the redirect there). Default: a random port on 127.0.0.1.",
            valueName: "uri"))
    var redirectURI: String?

    @OptionGroup var consentOptions: ConsentOptions

    @Flag(
        help: "Accept the offer without asking (consent given on the command line, for scripts).")
    var yes = false

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let setup = try await WalletCLI.exitOnError(2) { try prepare() }
        let givenCode = setup.code
        let options = ReceiveOptions(
            batch: batch, wait: wait, secureArea: store.secureAreas.secureArea.flatMap(SecureAreaName.init(rawValue:)))
        let outcome: ReceiveOutcome = try await WalletCLI.exitOnError(1, report: Self.report) {
            if let offer {
                return try await setup.holder.receive(
                    offer: offer, options: options, consent: setup.prompt,
                    transactionCode: { request throws(CredentialIssuanceError) in
                        guard let code = givenCode ?? Self.askTransactionCode(request.code) else {
                            throw .transactionCodeUnavailable(
                                "none was given (--tx-code-file FILE, - for standard input, or answer on the terminal)")
                        }
                        return code
                    },
                    events: Self.show)
            }
            return try await setup.holder.resumePending(options: options, events: Self.show)
        }
        if case .received(let ids) = outcome.outcome.result {
            for id in ids { Output.line(id) }
            if !outcome.outcome.pending.isEmpty {
                WalletCLI.warn(
                    "\(outcome.outcome.pending.count) issuance(s) pending: resume with mdoc-holder credentials receive --pending"
                )
            }
            if pending, ids.isEmpty, outcome.outcome.pending.isEmpty, outcome.outcome.failures.isEmpty {
                WalletCLI.warn("No pending issuances.")
            }
        }
        let status = outcome.classification.onlineExitStatus
        if status != 0 { throw ExitCode(status) }
    }

    /// The store's advice for a credential that failed issuer authentication also names
    /// `credentials import --no-verify-issuer`, which receiving does not have: here only the
    /// trust anchor is suggested.
    static func report(_ error: any Error) {
        WalletCLI.warn("mdoc-holder: \(WalletError.withoutImportAdvice("\(error)"))")
    }

    /// Reads the options; every failure here is bad input.
    private func prepare() throws -> (prompt: any ConsentPrompt, holder: Holder, code: String?) {
        guard (1...ReceiveOptions.batchLimit).contains(batch) else {
            throw WalletCLIError("--batch must be between 1 and \(ReceiveOptions.batchLimit)")
        }
        guard wait >= 0 else { throw WalletCLIError("--wait must be 0 or more seconds") }
        guard (offer == nil) == pending else {
            throw WalletCLIError(pending ? "--pending takes no offer" : "give the offer URL (or --pending)")
        }
        let prompt: any ConsentPrompt
        if yes || pending {
            // --pending asks no one: consent was given when the offer was accepted.
            prompt = AcceptingConsent()
        } else {
            prompt = try consentOptions.prompt().prompt
        }
        var settings = HolderSettings(redirectURI: redirectURI)
        settings.issuerTrust = try trustAnchors.flatMap { try WalletCLI.readCertificates($0) }
        settings.issuerScopedAnchors = try vical.scopedAnchors(at: Date()) { Output.line($0) }
        guard !settings.issuerTrust.isEmpty || !vical.isEmpty else {
            throw WalletCLIError(
                "give the IACA certificate(s) received credentials must chain to: --trust-anchor IACA.pem (or --vical)")
        }
        try https.apply(to: &settings)
        let code = try txCodeFile.map { path -> String in
            let line = try WalletCLI.firstLine(of: path, what: "transaction code", limit: 4096)
            return line.hasSuffix("\r") ? String(line.dropLast()) : line
        }
        return (prompt, Holder(settings: settings, store: try store.open(), log: WalletCLI.holderLog), code)
    }

    /// Asks for the transaction code on the controlling terminal, without echo.
    static func askTransactionCode(_ description: TransactionCodeDescription) -> String? {
        guard let terminal = try? SecretTerminal() else { return nil }
        var prompt = "Transaction code"
        if let text = description.description { prompt += " (\(text))" }
        var shape: [String] = []
        if let length = description.length { shape.append("\(length) characters") }
        if description.inputMode == .numeric { shape.append("digits") }
        if !shape.isEmpty { prompt += " [\(shape.joined(separator: ", "))]" }
        return terminal.readSecret(prompt: prompt + ": ")
    }

    /// Progress on standard error (standard output carries only the new IDs).
    @Sendable static func show(_ event: CredentialIssuance.Event) {
        switch event {
        case .fetchingOffer(let host):
            WalletCLI.warn("Fetching the offer from \(RemoteText.printable(host))")
        case .issuer(let name, let host):
            WalletCLI.warn("Issuer: \(RemoteText.printable(name)) (\(RemoteText.printable(host)))")
        case .openAuthorization(let url):
            // The one line a script or a user looks for, then the same URL as a QR code for a phone.
            WalletCLI.warn("open: \(url)")
            if let qr = try? QRCode(text: url) {
                Output.warn(
                    qr.terminalString(
                        colours: TerminalColours.wanted(fd: 2, environment: ProcessInfo.processInfo.environment)))
            }
            WalletCLI.warn("Waiting for the authorization (the browser is sent back to this machine)...")
        case .requestingToken(let host, let dpop):
            WalletCLI.warn("Requesting an access token from \(RemoteText.printable(host))\(dpop ? " (DPoP)" : "")")
        case .requestingCredential(let docType, let copies):
            WalletCLI.warn(
                "Requesting \(RemoteText.printable(docType))\(copies > 1 ? " (\(copies) copies)" : "")")
        case .stored(let id, let docType, let copies):
            WalletCLI.warn(
                "Stored \(RemoteText.printable(docType)) as credential \(id)\(copies > 1 ? " (\(copies) copies)" : "")"
            )
        case .deferred(let docType, let interval):
            WalletCLI.warn("The issuer deferred \(RemoteText.printable(docType)); asking again every \(interval) s")
        case .keptPending(let id, let docType):
            WalletCLI.warn("\(RemoteText.printable(docType)) is not ready: kept pending as \(id)")
        case .notified(let event):
            WalletCLI.warn("The issuer was notified: \(event)")
        }
    }
}

/// `--yes`: the consent was given on the command line.
struct AcceptingConsent: ConsentPrompt {
    func decide(_ request: ConsentRequest) async -> ConsentDecision { .approveAll(request) }
}
