import ArgumentParser
import CBOR
import CommandLineSupport
import Foundation
import MdocCrypto
import PrintableText
import VICAL

/// `mdoc-reader vical show`: what a VICAL holds and whether it verifies.
struct VICALCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vical", abstract: "Inspect VICALs (ISO 18013-5 Annex C.1.7 trust lists).",
        subcommands: [VICALShowCommand.self])
}

struct VICALShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a VICAL's provider, dates, IACAs, and whether its signature (and signer chain) verify.",
        discussion:
            "Exits 0 when the list verifies (with --vical-anchor: its signer chains), 1 when not, 2 on bad input.")

    @Argument(help: "The VICAL file (COSE_Sign1).")
    var file: String

    @Option(
        name: .customLong("vical-anchor"),
        help: ArgumentHelp("A root (PEM or DER) the VICAL signer must chain to. Repeatable.", valueName: "pem"))
    var anchors: [String] = []

    @Option(help: "Verification time (RFC 3339), default now.")
    var at: String?

    func run() throws {
        let signed: SignedVICAL
        var roots: [Certificate] = []
        var time = Date()
        do {
            signed = try VICALFile.read(file)
            for path in anchors { roots += try CertificateFile.read(path, what: "VICAL anchor") }
            if let at {
                guard let t = RFC3339.date(from: at) else {
                    throw ReaderCLIError("--at \(at) is not an RFC 3339 date-time")
                }
                time = t
            }
        } catch {
            Output.warn("mdoc-reader: \(RemoteText.printable(String(describing: error), limit: 2000))")
            throw ExitCode(2)
        }
        let vical = signed.vical
        Output.line("provider: \(RemoteText.printable(vical.vicalProvider))")
        Output.line("date: \(RFC3339.string(from: vical.date))")
        Output.line("issue id: \(vical.vicalIssueID.map(String.init) ?? "none")")
        Output.line("next update: \(vical.nextUpdate.map(RFC3339.string(from:)) ?? "none")")
        Output.line("signer: \(RemoteText.printable(signed.signer.subject))")
        let verdict = Self.verdict(signed, roots: roots, at: time)
        let entries = VerifiedVICAL.entries(of: vical)
        Output.line("IACAs: \(entries.count) (\(entries.filter { $0.skipped == nil }.count) usable)")
        for entry in entries { Output.line("  " + Self.line(entry)) }
        Output.line(verdict.text)
        if !verdict.ok { throw ExitCode(1) }
    }

    /// Whether the signature verifies, and with anchors whether the whole list is accepted.
    static func verdict(_ signed: SignedVICAL, roots: [Certificate], at time: Date) -> (ok: Bool, text: String) {
        do {
            try signed.checkSignature()
        } catch {
            return (false, RemoteText.printable(error.description, limit: 2000))
        }
        guard !roots.isEmpty else { return (true, "signature verifies, signer not chained (no --vical-anchor)") }
        do {
            _ = try signed.verify(anchors: roots, at: time)
            return (true, "signature verifies, signer chains to a VICAL anchor at \(RFC3339.string(from: time))")
        } catch {
            return (false, "signature verifies; " + RemoteText.printable(error.description, limit: 2000))
        }
    }

    /// `subject | docTypes | notBefore .. notAfter`, and why an entry is skipped.
    static func line(_ entry: IACAEntry) -> String {
        let subject = entry.certificate?.subject ?? "(certificate not read)"
        var from = entry.info.notBefore
        var until = entry.info.notAfter
        if let certificate = entry.certificate {
            from = certificate.notBefore
            until = certificate.notAfter
        }
        let validity = "\(from.map(RFC3339.string(from:)) ?? "?") .. \(until.map(RFC3339.string(from:)) ?? "?")"
        var text = "\(subject) | \(entry.info.docType.joined(separator: ", ")) | \(validity)"
        if let skipped = entry.skipped { text += " | skipped: \(skipped)" }
        return RemoteText.printable(text, limit: 1000)
    }
}
