import ArgumentParser
import BoundedFile
import CBOR
import CommandLineSupport
import Foundation
import MdocCrypto
import Wallet

/// `mdoc-holder credentials import|list|show|delete`: the credential store from the command
/// line. Element values are shown only by `show --values`; device keys never.
struct CredentialsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "Import, list, show and delete the stored mdoc credentials.",
        subcommands: [Import.self, List.self, Show.self, Delete.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import the credential(s) of an issuer's file and print the new credential ID(s).",
            discussion: """
                FILE is the CBOR an issuer produced (binary or hex): an IssuerSigned, a Document, or a \
                DeviceResponse-shaped container of documents (as pymdoccbor writes). Each document is checked: \
                issuer data authentication against the --trust-anchor IACA certificates (unless \
                --no-verify-issuer), its validity, its docType, and that --device-key is the key its MSO names. \
                Either every document is stored or none is.
                """)

        @Argument(help: ArgumentHelp("The issuer's credential file (- for standard input).", valueName: "file"))
        var file: String

        @Option(
            name: .customLong("device-key"),
            help: ArgumentHelp(
                "PEM private key the credential was issued to; it goes into --secure-area (software: wrapped).",
                valueName: "pem"))
        var deviceKey: String?

        @Option(
            name: .customLong("key"),
            help: ArgumentHelp(
                "ID of a stored key (keys create) the credential was issued to, instead of --device-key.",
                valueName: "id"))
        var keyID: String?

        @Option(
            name: .customLong("trust-anchor"),
            help: ArgumentHelp(
                "IACA certificate (PEM or DER) to verify the issuer with; repeat for more.", valueName: "pem"))
        var trustAnchors: [String] = []

        @Flag(
            name: .customLong("no-verify-issuer"),
            help:
                "Do not verify issuer data authentication (signature, certificate chain, digests). For test credentials only."
        )
        var noVerifyIssuer = false

        @OptionGroup var store: StoreOptions

        func run() throws {
            let bytes = try WalletCLI.readFile(file, what: "credential file")
            guard (deviceKey == nil) != (keyID == nil) else {
                if deviceKey != nil { throw ValidationError("give --device-key or --key, not both") }
                throw WalletError.deviceKeyMissing
            }
            let keyPEM = try deviceKey.map {
                String(decoding: try WalletCLI.readFile($0, what: "device key", limit: InputLimit.key), as: UTF8.self)
            }
            let anchors = try trustAnchors.flatMap { try WalletCLI.readCertificates($0) }
            if noVerifyIssuer {
                WalletCLI.warn("warning: importing without verifying the issuer (--no-verify-issuer)")
            }
            let ids: [String]
            let isNewStore = !FileManager.default.fileExists(atPath: store.resolvedPath)
            if let keyID {
                guard !isNewStore else {
                    throw ValidationError(
                        "--key \(keyID): there is no store at \(store.resolvedPath) yet, so no key of it either")
                }
                ids = try store.open().import(
                    fileBytes: bytes, keyID: keyID, trustAnchors: anchors, verifyIssuer: !noVerifyIssuer)
            } else {
                if isNewStore {
                    // A new store is created only for an import that succeeds: every check runs
                    // first on a store in memory (with a throw-away software area).
                    try CredentialStore(path: ":memory:", secureAreas: .ephemeral()).import(
                        fileBytes: bytes, deviceKeyPEM: keyPEM!, trustAnchors: anchors, verifyIssuer: !noVerifyIssuer)
                }
                ids = try store.open().import(
                    fileBytes: bytes, deviceKeyPEM: keyPEM!, trustAnchors: anchors, verifyIssuer: !noVerifyIssuer)
            }
            for id in ids { Output.line(id) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the stored credentials (element identifiers, never values).")

        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var store: StoreOptions

        func run() throws {
            let credentials = try store.openExisting()?.list() ?? []
            if json { return try WalletCLI.printJSON(credentials) }
            guard !credentials.isEmpty else {
                WalletCLI.warn(
                    "No credentials stored. Import one with: mdoc-holder credentials import FILE --device-key KEY.pem")
                return
            }
            let now = Date()
            var rows = [["ID", "DOC TYPE", "STATUS", "VALID UNTIL", "ELEMENTS", "ISSUER"]]
            for c in credentials {
                rows.append([
                    c.id, c.docType, c.problem == nil ? status(c.validFrom, c.validUntil, now) : "UNREADABLE",
                    RFC3339.string(from: c.validUntil),
                    String(c.elements.count), c.issuerSubject ?? "-",
                ])
            }
            for line in WalletCLI.table(rows) { Output.line(line) }
            for c in credentials { if let problem = c.problem { WalletCLI.warn("warning: \(problem)") } }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one credential; element values only with --values.")

        @Argument(help: ArgumentHelp("The credential ID (see `credentials list`).", valueName: "id"))
        var id: String

        @Flag(help: "Print JSON.") var json = false
        @Flag(help: "Include element values (CBOR diagnostic notation; byte strings shown by length only).")
        var values = false
        @OptionGroup var store: StoreOptions

        func run() throws {
            guard let wallet = try store.openExisting() else { throw WalletError.unknownCredential(id: id) }
            let d = try wallet.show(id: id, includeValues: values)
            if json { return try WalletCLI.printJSON(d) }
            let now = Date()
            var rows: [[String]] = [
                ["doc type:", d.docType],
                ["issuer:", d.issuerSubject ?? "-"],
                ["status:", status(d.validFrom, d.validUntil, now)],
                ["valid from:", RFC3339.string(from: d.validFrom)],
                ["valid until:", RFC3339.string(from: d.validUntil)],
                ["signed:", RFC3339.string(from: d.signed)],
            ]
            if let update = d.expectedUpdate { rows.append(["expected update:", RFC3339.string(from: update)]) }
            rows += [
                ["imported:", RFC3339.string(from: d.importedAt)],
                ["digest:", d.digestAlgorithm],
                ["device key:", d.deviceKeyCurve],
            ]
            Output.line("credential \(d.id)")
            for line in WalletCLI.table(rows) { Output.line("  " + line) }
            Output.line("  elements (\(d.elements.count)):")
            for element in d.elements {
                Output.line("    " + element.id + (element.value.map { " = " + $0 } ?? ""))
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a stored credential (its history stays).")

        @Argument(help: ArgumentHelp("The credential ID (see `credentials list`).", valueName: "id"))
        var id: String

        @OptionGroup var store: StoreOptions

        func run() throws {
            guard let wallet = try store.openExisting() else { throw WalletError.unknownCredential(id: id) }
            try wallet.delete(id: id)
            WalletCLI.warn("deleted credential \(id)")
        }
    }
}

/// "valid", "expired" or "not yet valid" at `now`.
private func status(_ validFrom: Date, _ validUntil: Date, _ now: Date) -> String {
    if now < validFrom { return "not yet valid" }
    if now > validUntil { return "expired" }
    return "valid"
}
