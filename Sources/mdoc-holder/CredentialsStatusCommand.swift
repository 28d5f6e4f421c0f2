import ArgumentParser
import FoundationEssentials
import HolderRuntime
import OnlineTransport
import Wallet

extension CredentialsCommand {
    /// `mdoc-holder credentials status [ID]`: the status of the holder's own credentials in
    /// their issuers' Token Status Lists, checked now and stored.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Check the stored credentials' status in their issuers' status lists (goes online).",
            discussion: """
                For each stored credential that carries a status list reference (an mdoc's MSO status, an \
                SD-JWT VC's status claim), or ID only: fetch the issuer's Status List Token over HTTPS (the \
                system trust store plus --tls-ca), verify it (its signer must chain to a --trust-anchor: the \
                IACA certificates that authenticate the issuer, as for `credentials import`; the holder does \
                not keep them), read the credential's entry and store it with the time. Prints one line per \
                credential: doc type, ID, status (valid, invalid, suspended, other (0xNN), or unknown with why \
                and the last known status), checked at. A credential whose last known status is invalid or \
                suspended is not presented, over BLE or online.

                Exit status: 0 when every list answered (whatever the status); 2 when at least one could \
                not be fetched, verified or read (its last known status is kept); 1 on any other error.
                """)

        @Argument(help: ArgumentHelp("Only this credential (see `credentials list`).", valueName: "id"))
        var id: String?

        @Option(
            name: .customLong("trust-anchor"),
            help: ArgumentHelp(
                "IACA certificate (PEM or DER) the status list signer must chain to; repeat for more.",
                valueName: "pem"))
        var trustAnchors: [String] = []

        @Option(
            name: .customLong("tls-ca"),
            help: ArgumentHelp(
                "CA certificate (PEM or DER) trusted for HTTPS besides the system trust store. Repeatable.",
                valueName: "pem"))
        var tlsCAs: [String] = []

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let anchors = try trustAnchors.flatMap { try WalletCLI.readCertificates($0) }
            guard !anchors.isEmpty else {
                throw ValidationError(
                    "give the IACA certificate(s) that authenticate the issuers: --trust-anchor IACA.pem")
            }
            guard let wallet = try store.openExisting() else {
                if let id { throw WalletError.unknownCredential(id: id) }
                WalletCLI.warn("No credentials stored.")
                return
            }
            let resolver = try StatusListResolver(
                tlsCAs: try tlsCAs.flatMap { try WalletCLI.readCertificates($0, what: "TLS CA certificate") })
            let holder = Holder(settings: HolderSettings(issuerTrust: anchors), store: wallet) { _ in }
            let refreshed = try await holder.refreshStatus(id: id, checker: resolver)
            if refreshed.isEmpty {
                WalletCLI.warn(
                    id == nil
                        ? "No stored credential carries a status list reference."
                        : "Credential \(id!) carries no status list reference.")
            }
            for refresh in refreshed { WalletCLI.line(refresh.line) }
            if refreshed.contains(where: { !$0.isAnswered || $0.storeProblem != nil }) { throw ExitCode(2) }
        }
    }
}
