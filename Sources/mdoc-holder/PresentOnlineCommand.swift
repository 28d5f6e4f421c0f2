import ArgumentParser
import CommandLineSupport
import Consent
import FoundationEssentials
import HolderRuntime
import MdocCrypto
import OnlineFlows
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

    @OptionGroup var consentOptions: ConsentOptions

    @OptionGroup var online: OnlineTrustOptions

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let setup = try await WalletCLI.exitOnError(2) { try prepare() }
        let outcome = try await WalletCLI.exitOnError(1) {
            try await setup.holder.presentOnline(url: url, consent: setup.prompt, events: Self.show)
        }
        report(outcome.outcome)
        let status = outcome.classification.onlineExitStatus
        if status != 0 { throw ExitCode(status) }
    }

    /// Reads the options; every failure here is bad input.
    private func prepare() throws -> (prompt: any ConsentPrompt, holder: Holder) {
        try Self.checkURL(url.trimmingWhitespace())
        let settings = try online.settings()
        let prompt = try consentOptions.prompt().prompt
        guard let wallet = try store.openExisting() else {
            throw WalletCLIError(
                "no credential store at \(store.resolvedPath): import a credential first (mdoc-holder credentials import)"
            )
        }
        try wallet.checkKeysUsable()
        return (prompt, Holder(settings: settings, store: wallet, log: WalletCLI.holderLog))
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
        case .refused, .rejectedByVerifier:
            let text = OnlinePresentationOutcome(outcome).description
            WalletCLI.line(text.prefix(1).uppercased() + text.dropFirst())
        }
        if let redirect = outcome.redirectURI {
            Output.line("redirect_uri: \(RemoteText.printable(redirect))")
        }
    }
}
