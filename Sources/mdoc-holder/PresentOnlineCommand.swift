import ArgumentParser
import CommandLineSupport
import Consent
import Foundation
import MdocCrypto
import OnlineTransport
import OpenID4VP
import PrintableText
import Wallet

/// `mdoc-holder present-online URL`: answers one OpenID4VP 1.0 request (the content of a
/// verifier's QR code or link) from the credential store, after consent.
struct PresentOnlineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present-online",
        abstract: "Present credentials to an OpenID4VP verifier (the URL of its QR code or link).",
        discussion: """
            URL is an OpenID4VP authorization request as a QR code or link carries it (openid4vp://, \
            haip-vp://, mdoc-openid4vp:// or https://...?client_id=...): by value, as a signed Request Object, \
            or by reference (request_uri, fetched with GET or POST). The holder checks who asks (signed \
            requests: the certificate chain against --verifier-trust), shows it, asks for consent, sends only \
            the approved elements and records the presentation in the history. A decline, a request no \
            credential can answer and other refusals go to the verifier as errors when its identity is proven.

            HTTPS only, verified against the system trust store and any --tls-ca; through the proxy \
            https_proxy names (an HTTP CONNECT tunnel, TLS end to end) unless no_proxy lists the host. \
            Exits 0 when the credentials were sent and accepted, 1 when declined, refused or failed (the \
            message says what happened), 2 on bad input.
            """)

    @Argument(help: ArgumentHelp("The authorization request URL.", valueName: "url"))
    var url: String

    @Option(
        name: .customLong("consent"),
        help: ArgumentHelp(
            "tty: ask on the controlling terminal; policy:FILE: answer from a kiosk policy file (docs/kiosk-policy.md).",
            valueName: "tty|policy:FILE"))
    var consent: String = "tty"

    @Option(
        name: .customLong("verifier-trust"),
        help: ArgumentHelp(
            "CA certificate (PEM or DER) that x509_san_dns / x509_hash verifiers' request signing certificates must chain to. Repeatable.",
            valueName: "pem"))
    var verifierTrust: [String] = []

    @Option(
        name: .customLong("verifiers"),
        help: ArgumentHelp(
            "File of pre-registered verifiers (client_id without prefix; see docs/online-presentation.md).",
            valueName: "file"))
    var verifiersFile: String?

    @Option(
        name: .customLong("tls-ca"),
        help: ArgumentHelp(
            "CA certificate (PEM or DER) trusted for HTTPS besides the system trust store. Repeatable; for private deployments and tests.",
            valueName: "pem"))
    var tlsCAs: [String] = []

    @Option(
        name: .customLong("http-timeout"),
        help: ArgumentHelp(
            "Deadline in seconds of each HTTPS exchange (connection, TLS, request and the whole answer; 1 to 3600, default 30).",
            valueName: "seconds"))
    var httpTimeout: Int?

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let setup:
            (
                prompt: any ConsentPrompt, trust: VerifierTrustConfiguration, tls: [Certificate],
                wallet: CredentialStore
            )
        do {
            setup = try prepare()
        } catch {
            WalletCLI.warn("mdoc-holder: \(error)")
            throw ExitCode(2)
        }
        let outcome: OnlineOutcome
        do {
            outcome = try await OnlinePresentation.run(
                url: url.trimmingCharacters(in: .whitespacesAndNewlines), store: setup.wallet, consent: setup.prompt,
                verifierTrust: setup.trust, tlsCAs: setup.tls, limits: .deadline(seconds: httpTimeout),
                events: Self.show)
        } catch {
            WalletCLI.warn("mdoc-holder: \(error)")
            throw ExitCode(1)
        }
        report(outcome)
        if !outcome.isSent { throw ExitCode(1) }
    }

    /// Reads the options; every failure here is bad input.
    private func prepare() throws -> (
        prompt: any ConsentPrompt, trust: VerifierTrustConfiguration, tls: [Certificate], wallet: CredentialStore
    ) {
        try Self.checkURL(url.trimmingCharacters(in: .whitespacesAndNewlines))
        if let httpTimeout, !(1...3600).contains(httpTimeout) {
            throw WalletCLIError("--http-timeout must be between 1 and 3600 seconds")
        }
        let prompt: any ConsentPrompt
        switch try ConsentChoice(parsing: consent, allowed: [.tty, .policy]) {
        case .policy(let path): prompt = try PolicyConsent(path: path)
        case .tty, .agent: prompt = TerminalConsentPrompt(io: try ControllingTerminal())
        }
        let anchors = try verifierTrust.flatMap { try WalletCLI.readCertificates($0) }
        let preRegistered = try verifiersFile.map { try PreRegisteredVerifierFile.load(path: $0) } ?? []
        let trust = VerifierTrustConfiguration(trustAnchors: anchors, preRegistered: preRegistered)
        let tls = try tlsCAs.flatMap { try WalletCLI.readCertificates($0) }
        guard let wallet = try store.openExisting() else {
            throw WalletCLIError(
                "no credential store at \(store.resolvedPath): import a credential first (mdoc-holder credentials import)"
            )
        }
        try wallet.checkKeysUsable()
        return (prompt, trust, tls, wallet)
    }

    /// Refuses what is not an OpenID4VP request URL at all (the request's own errors are the
    /// verifier's, reported with exit status 1).
    static func checkURL(_ url: String) throws {
        guard let colon = url.firstIndex(of: ":"),
            AuthorizationRequestURL.schemes.contains(url[..<colon].lowercased())
        else {
            throw WalletCLIError(
                "the URL is not an OpenID4VP request (openid4vp://, haip-vp://, mdoc-openid4vp:// or https://...)")
        }
        guard url.contains("?") else { throw WalletCLIError("the URL has no request parameters (no ?...)") }
    }

    /// Progress on standard output.
    @Sendable static func show(_ event: OnlinePresentation.Event) {
        switch event {
        case .fetchingRequest(let host):
            Output.line("Fetching the request from \(RemoteText.printable(host))")
        case .verified(let requester, let signed):
            var who = RemoteText.printable(requester.displayName)
            if let identifier = requester.identifier, identifier != requester.displayName {
                who += " (\(RemoteText.printable(identifier)))"
            }
            Output.line("Request from \(who)")
            Output.line(
                "  \(signed ? "signed request" : "unsigned request"); \(RemoteText.printable(requester.authentication.summary))"
            )
        case .askingConsent:
            break
        case .sending(let host):
            Output.line("Sending to \(RemoteText.printable(host))")
        }
    }

    private func report(_ outcome: OnlineOutcome) {
        switch outcome.result {
        case .sent:
            Output.line("Sent:")
            for record in outcome.records {
                WalletCLI.line("  \(record.docType): " + record.elementsSent.map(\.identifier).joined(separator: ", "))
            }
        case .declined:
            Output.line("Declined" + (outcome.reportedToVerifier ? ": the verifier was told (access_denied)." : "."))
        case .refused(let error):
            let reported =
                outcome.reportedToVerifier
                ? "the verifier was told"
                : (outcome.requester == nil ? "not reported: the request's origin is not proven" : "not reported")
            WalletCLI.line("Refused: \(error.code.rawValue): \(error.description) (\(reported))")
        case .rejectedByVerifier(let status):
            Output.line("The verifier did not accept the response (HTTP \(status)).")
        }
        if let redirect = outcome.redirectURI {
            Output.line("redirect_uri: \(RemoteText.printable(redirect))")
        }
        for warning in outcome.warnings { WalletCLI.warn("warning: \(warning)") }
    }
}
