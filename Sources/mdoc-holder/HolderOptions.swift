import ArgumentParser
import CommandLineSupport
import Consent
import ConsentPolicy
import HolderRuntime
import OnlineTransport
import OpenID4VP
import TerminalConsent

/// `--tls-ca` and `--http-timeout`: the HTTPS client of `present-online`, `credentials
/// receive` and `serve` (one parser for all three).
struct HTTPSOptions: ParsableArguments {
    @Option(
        name: .customLong("tls-ca"),
        help: ArgumentHelp(
            "CA certificate (PEM or DER) trusted for HTTPS besides the system trust store. Repeatable; for private deployments and tests.",
            valueName: "pem"))
    var tlsCAs: [String] = []

    @Option(
        help: ArgumentHelp(
            "Deadline in seconds of each HTTPS exchange (connection, TLS, request and the whole answer; 1 to 3600, default 30).",
            valueName: "seconds"))
    var httpTimeout: Int?

    /// `settings` with these.
    func apply(to settings: inout HolderSettings) throws {
        if let httpTimeout, !(1...3600).contains(httpTimeout) {
            throw WalletCLIError("--http-timeout must be between 1 and 3600 seconds")
        }
        settings.tlsCAs = try tlsCAs.flatMap { try WalletCLI.readCertificates($0, what: "TLS CA certificate") }
        settings.httpLimits = .deadline(seconds: httpTimeout)
    }
}

/// `--verifier-trust`, `--verifiers` and the HTTPS options: who may ask for an online
/// presentation (`present-online` and `serve`, one parser for both).
struct OnlineTrustOptions: ParsableArguments {
    @Option(
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

    @OptionGroup var https: HTTPSOptions

    /// `settings` with these.
    func apply(to settings: inout HolderSettings) throws {
        try https.apply(to: &settings)
        let anchors = try verifierTrust.flatMap { try WalletCLI.readCertificates($0, what: "verifier trust anchor") }
        let preRegistered = try verifiersFile.map { try PreRegisteredVerifierFile.load(path: $0) } ?? []
        settings.verifierTrust = VerifierTrustConfiguration(trustAnchors: anchors, preRegistered: preRegistered)
    }

    /// The holder's settings for online presentation.
    func settings() throws -> HolderSettings {
        var settings = HolderSettings()
        try apply(to: &settings)
        return settings
    }
}

/// `--consent tty|policy:FILE` of `present`, `present-online` and `credentials receive`:
/// who answers requests on the command line (one parser for the three).
struct ConsentOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "tty: ask on the controlling terminal; policy:FILE: answer from a policy file's reader or issuer rules (docs/kiosk-policy.md).",
            valueName: "tty|policy:FILE"))
    var consent: String = "tty"

    /// The front-end, and the controlling terminal when it is the terminal's.
    func prompt() throws -> (prompt: any ConsentPrompt, terminal: ControllingTerminal?) {
        try Self.prompt(consent: consent)
    }

    /// The front-end `consent` (the option's value) names, and the controlling terminal when it
    /// is the terminal's.
    static func prompt(consent: String) throws -> (prompt: any ConsentPrompt, terminal: ControllingTerminal?) {
        switch try ConsentChoice(parsing: consent, allowed: [.tty, .policy]) {
        case .policy(let path): return (try PolicyConsent(path: path), nil)
        case .tty, .agent:
            let terminal = try ControllingTerminal()
            return (TerminalConsentPrompt(io: terminal), terminal)
        }
    }
}
