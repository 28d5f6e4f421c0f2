import ArgumentParser
import BoundedFile
import CBOR
import CommandLineSupport
import FoundationEssentials
import JOSE
import MdocCrypto
import OnlineFlows
import OnlineTransport
import PrintableText
import SDJWT
import Wallet

/// `mdoc-holder credentials import|list|show|delete`: the credential store from the command
/// line. Element values are shown only by `show --values`; device keys never.
struct CredentialsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "Import, receive, list, show and delete the stored mdoc credentials.",
        subcommands: [Import.self, ReceiveCommand.self, List.self, Show.self, Delete.self, Status.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import the credential(s) of an issuer's file and print the new credential ID(s).",
            discussion: """
                FILE is the CBOR an issuer produced (binary or hex): an IssuerSigned, a Document, or a \
                DeviceResponse-shaped container of documents (as pymdoccbor writes). Each document is checked: \
                issuer data authentication against the --trust-anchor IACA certificates (unless \
                --no-verify-issuer), its validity, its docType, and that --device-key is the key its MSO names. \
                Either every document is stored or none is.

                FILE may also be an SD-JWT VC (dc+sd-jwt) in compact form, <issuer-signed JWT>~<Disclosure>~...~ \
                (the format is detected). It is checked: every Disclosure referenced by the signed payload once, \
                typ, vct, iss, nbf/exp, the issuer signature with its x5c certificate and that certificate's chain \
                to a --trust-anchor (unless --no-verify-issuer), and that cnf.jwk is the --device-key / --key. \
                An SD-JWT VC without x5c is verified with the keys its issuer publishes at \
                /.well-known/jwt-vc-issuer (fetched over HTTPS) when --issuer-metadata is given.
                """)

        @Argument(help: ArgumentHelp("The issuer's credential file (- for standard input).", valueName: "file"))
        var file: String

        @Option(
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

        @OptionGroup var vical: VICALOptions

        @Flag(
            help:
                "Do not verify issuer data authentication (signature, certificate chain, digests). For test credentials only."
        )
        var noVerifyIssuer = false

        @Flag(
            help:
                "SD-JWT VCs without x5c: fetch the issuer's keys from its /.well-known/jwt-vc-issuer over HTTPS (goes online)."
        )
        var issuerMetadata = false

        @Option(
            name: .customLong("tls-ca"),
            help: ArgumentHelp(
                "With --issuer-metadata: a CA certificate (PEM or DER) trusted for HTTPS besides the system's.",
                valueName: "pem"))
        var tlsCAs: [String] = []

        @OptionGroup var store: StoreOptions

        func run() async throws {
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
            let verify = !noVerifyIssuer
            let scoped = try vical.scopedAnchors(at: Date()) { Output.line($0) }
            let ids: [String]
            if let compact = CredentialStore.sdJWTText(bytes) {
                let keys = try await publishedIssuerKeys(of: compact)
                ids = try importing(
                    byKey: {
                        [
                            try $0.importSDJWT(
                                compact: compact, keyID: $1, trustAnchors: anchors, issuerKeys: keys,
                                verifyIssuer: verify)
                        ]
                    },
                    byPEM: {
                        [
                            try $0.importSDJWT(
                                compact: compact, deviceKeyPEM: keyPEM, trustAnchors: anchors, issuerKeys: keys,
                                verifyIssuer: verify)
                        ]
                    })
            } else {
                ids = try importing(
                    byKey: {
                        try $0.import(
                            fileBytes: bytes, keyID: $1, trustAnchors: anchors, verifyIssuer: verify,
                            scopedAnchors: scoped)
                    },
                    byPEM: {
                        try $0.import(
                            fileBytes: bytes, deviceKeyPEM: keyPEM, trustAnchors: anchors, verifyIssuer: verify,
                            scopedAnchors: scoped)
                    })
            }
            for id in ids { Output.line(id) }
        }

        /// With --issuer-metadata, the keys the SD-JWT VC's issuer publishes (only for a JWT
        /// without x5c: a chain is checked against the trust anchors instead).
        private func publishedIssuerKeys(of compact: String) async throws -> [JWK]? {
            guard issuerMetadata, !noVerifyIssuer else { return nil }
            let credential: SDJWTVC
            do {
                credential = try SDJWTVC(issued: compact)
            } catch {
                throw WalletError.sdJWTRefused(error)
            }
            guard !credential.hasCertificateChain else { return nil }
            let roots = try tlsCAs.flatMap { try WalletCLI.readCertificates($0) }
            do {
                return try await JWTVCIssuerKeys.fetch(issuer: credential.issuer, tlsCAs: roots)
            } catch {
                throw WalletError.sdJWTRefused(error)
            }
        }

        /// Imports with `--key` into the existing store, or with `--device-key`; a new store is
        /// created only for an import that succeeds: every check runs first on a store in memory
        /// (with a throw-away software area).
        private func importing(
            byKey: (CredentialStore, String) throws -> [String], byPEM: (CredentialStore) throws -> [String]
        ) throws -> [String] {
            let isNewStore = !FileManager.default.fileExists(atPath: store.resolvedPath)
            if let keyID {
                guard !isNewStore else {
                    throw ValidationError(
                        "--key \(keyID): there is no store at \(store.resolvedPath) yet, so no key of it either")
                }
                return try byKey(try store.open(), keyID)
            }
            if isNewStore { _ = try byPEM(try CredentialStore(path: ":memory:", secureAreas: .ephemeral())) }
            return try byPEM(try store.open())
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the stored credentials (element identifiers, never values) and pending issuances.")

        @OptionGroup var listing: ListingOptions

        func run() throws {
            let wallet = try listing.store.openExisting()
            let credentials = try wallet?.list() ?? []
            if try listing.printedJSON(credentials) { return }
            let pending = try wallet?.pendingIssuances() ?? []
            for p in pending {
                Output.line(
                    "pending \(p.id)  \(RemoteText.printable(p.docType))  from \(RemoteText.quoted(p.issuerName)) since \(RFC3339.string(from: p.createdAt))  "
                        + "(resume: mdoc-holder credentials receive --pending)")
            }
            guard !credentials.isEmpty else {
                WalletCLI.warn(
                    "No credentials stored. Import one with: mdoc-holder credentials import FILE --device-key KEY.pem")
                return
            }
            let now = Date()
            var rows = [
                [
                    "ID", "DOC TYPE", "STATUS", "VALID UNTIL", "LIST STATUS", "CHECKED AT", "ELEMENTS", "UNUSED COPIES",
                    "ISSUER",
                ]
            ]
            for c in credentials {
                rows.append([
                    c.id, c.format == "mso_mdoc" ? c.docType : "\(c.docType) (\(c.format))",
                    c.problem == nil ? status(c.validFrom, c.validUntil, now) : "UNREADABLE",
                    untilText(c.validUntil), c.lastStatus.map { "\($0.status)" } ?? "-",
                    c.lastStatus.map { RFC3339.string(from: $0.checkedAt) } ?? "-",
                    String(c.elements.count), c.copies.map { "\(c.unusedCopies ?? 0)/\($0)" } ?? "-",
                    c.issuerSubject ?? "-",
                ])
            }
            for line in WalletCLI.table(rows) { Output.line(line) }
            for c in credentials {
                if let problem = c.problem { WalletCLI.warn("warning: \(RemoteText.printable(problem, limit: 600))") }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
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
                ["format:", d.format],
                [d.format == "mso_mdoc" ? "doc type:" : "vct:", d.docType],
                ["issuer:", d.issuerSubject ?? "-"],
                ["status:", status(d.validFrom, d.validUntil, now)],
                ["valid from:", RFC3339.string(from: d.validFrom)],
                ["valid until:", untilText(d.validUntil)],
                ["signed:", RFC3339.string(from: d.signed)],
            ]
            if let update = d.expectedUpdate { rows.append(["expected update:", RFC3339.string(from: update)]) }
            if let last = d.lastStatus {
                rows.append(["status list:", "\(last.status) (checked at \(RFC3339.string(from: last.checkedAt)))"])
            }
            rows += [
                ["imported:", RFC3339.string(from: d.importedAt)],
                ["digest:", d.digestAlgorithm],
                ["device key:", d.deviceKeyCurve],
            ]
            Output.line("credential \(d.id)")
            for line in WalletCLI.table(rows) { Output.line("  " + line) }
            Output.line(
                d.format == "mso_mdoc" ? "  elements (\(d.elements.count)):" : "  claims (\(d.elements.count)):")
            for element in d.elements {
                Output.line(
                    "    " + RemoteText.printable(element.id)
                        + (element.value.map { " = " + RemoteText.printable($0, limit: 4000) } ?? ""))
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a stored credential (its history stays).",
            discussion: """
                A credential received with OpenID4VCI whose issuer asked for notifications (with a Bearer \
                token) is reported to the issuer as credential_deleted; a notification that cannot be \
                delivered is a warning, the credential is deleted anyway.
                """)

        @Argument(help: ArgumentHelp("The credential ID (see `credentials list`).", valueName: "id"))
        var id: String

        @Option(
            name: .customLong("tls-ca"),
            help: ArgumentHelp(
                "CA certificate (PEM or DER) trusted for HTTPS besides the system trust store, for the issuer's notification endpoint. Repeatable.",
                valueName: "pem"))
        var tlsCAs: [String] = []

        @OptionGroup var store: StoreOptions

        func run() async throws {
            guard let wallet = try store.openExisting() else { throw WalletError.unknownCredential(id: id) }
            let tls = try tlsCAs.flatMap { try WalletCLI.readCertificates($0) }
            let pending = try wallet.pendingNotification(forDeleting: id)
            try wallet.delete(id: id)
            WalletCLI.warn("deleted credential \(id)")
            guard let pending else { return }
            do {
                try await CredentialIssuance.notifyDeleted(pending, tlsCAs: tls)
                WalletCLI.warn("The issuer was notified: credential_deleted")
            } catch {
                WalletCLI.warn("warning: the issuer could not be notified (credential_deleted): \(error)")
            }
        }
    }
}

/// The end of validity, "-" for an SD-JWT VC without `exp`.
private func untilText(_ validUntil: Date) -> String {
    validUntil == .distantFuture ? "-" : RFC3339.string(from: validUntil)
}

/// "valid", "expired" or "not yet valid" at `now`.
private func status(_ validFrom: Date, _ validUntil: Date, _ now: Date) -> String {
    if now < validFrom { return "not yet valid" }
    if now > validUntil { return "expired" }
    return "valid"
}
