import ArgumentParser
import CBOR
import CommandLineSupport
import FoundationEssentials
import PrintableText
import Wallet

/// `mdoc-holder history`: every presentation, oldest first: when, over which channel, who
/// asked and how well they were authenticated, the doc type, which elements were sent (never
/// their values) and what was decided.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract:
            "Show the presentation and issuance history (who asked or issued, when, which elements; never values).")

    @OptionGroup var listing: ListingOptions

    func run() throws {
        let (entries, unreadable) = try listing.store.openExisting()?.readHistory() ?? ([], [])
        for row in unreadable {
            WalletCLI.warn("warning: \(RemoteText.printable(String(describing: row), limit: 600))")
        }
        if try listing.printedJSON(entries) { return }
        guard !entries.isEmpty else {
            WalletCLI.warn("No presentations or issuances yet.")
            return
        }
        // The store keeps the other side's words (names, doc types, element identifiers,
        // certificate names in the authentication): each is shown through RemoteText, names quoted.
        for e in entries {
            var requester = RemoteText.quoted(e.requesterName)
            if let identifier = e.requesterIdentifier, identifier != e.requesterName {
                requester += " (\(RemoteText.quoted(identifier)))"
            }
            var decision =
                e.decision.reason.map { "failed: \(RemoteText.printable($0, limit: 400))" } ?? e.decision.name
            if let copies = e.copies, copies > 1 { decision += " (\(copies) copies)" }
            Output.line(
                "\(RFC3339.string(from: e.time))  \(e.channel.rawValue)  \(decision)  \(RemoteText.printable(e.docType))  "
                    + "\(requester) [\(RemoteText.printable(e.authentication, limit: 400))]"
            )
            if let useCase = e.useCase { Output.line("    use case: \(RemoteText.printable(useCase, limit: 400))") }
            if !e.elementsSent.isEmpty {
                Output.line(
                    (e.channel == .issuance ? "    received: " : "    sent: ")
                        + e.elementsSent.map { RemoteText.printable($0) }.joined(separator: ", "))
            }
        }
    }
}
