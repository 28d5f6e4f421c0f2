import ArgumentParser
import CBOR
import CommandLineSupport
import Foundation
import Wallet

/// `mdoc-holder history`: every presentation, oldest first: when, over which channel, who
/// asked and how well they were authenticated, the doc type, which elements were sent (never
/// their values) and what was decided.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract:
            "Show the presentation and issuance history (who asked or issued, when, which elements; never values).")

    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        let (entries, unreadable) = try store.openExisting()?.readHistory() ?? ([], [])
        for row in unreadable { WalletCLI.warn("warning: \(row)") }
        if json { return try WalletCLI.printJSON(entries) }
        guard !entries.isEmpty else {
            WalletCLI.warn("No presentations or issuances yet.")
            return
        }
        for e in entries {
            var requester = e.requesterName
            if let identifier = e.requesterIdentifier, identifier != e.requesterName { requester += " (\(identifier))" }
            var decision = e.decision.reason.map { "failed: \($0)" } ?? e.decision.name
            if let copies = e.copies, copies > 1 { decision += " (\(copies) copies)" }
            Output.line(
                "\(RFC3339.string(from: e.time))  \(e.channel.rawValue)  \(decision)  \(e.docType)  \(requester) [\(e.authentication)]"
            )
            if !e.elementsSent.isEmpty {
                Output.line(
                    (e.channel == .issuance ? "    received: " : "    sent: ") + e.elementsSent.joined(separator: ", "))
            }
        }
    }
}
