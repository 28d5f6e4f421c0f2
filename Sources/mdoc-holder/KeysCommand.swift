import ArgumentParser
import CommandLineSupport
import FoundationEssentials
import MdocCrypto
import SecureArea
import Wallet

/// `mdoc-holder keys create|list|delete`: device keys in their secure areas. Private keys are
/// never printed; `create` can write the public key for an issuer.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Create, list and delete device keys in the secure areas (software, tpm2).",
        subcommands: [Create.self, List.self, Delete.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Make a device key in a secure area and print its ID.",
            discussion: """
                The key is made in --secure-area (default software: wrapped under the key-encryption key; tpm2: \
                inside the TPM). Give its public key (--public-key-out) to an issuer, then import the credential \
                with `credentials import FILE --key ID`. With --key-passphrase-file the key needs that passphrase \
                (PIN) on every use.
                """)

        @Option(help: ArgumentHelp("P-256 (every area), P-384, P-521; software also Ed25519.", valueName: "curve"))
        var curve = "P-256"

        @Option(
            help: ArgumentHelp("Write the public key (PEM) to this file.", valueName: "pem"))
        var publicKeyOut: String?

        @OptionGroup var store: StoreOptions

        func run() throws {
            guard let curve = Curve(rawValue: curve) else {
                throw ValidationError("unknown curve \(curve): give P-256, P-384, P-521 or Ed25519")
            }
            let opened = try store.open()
            let key = try opened.createKey(
                KeySettings(curve: curve, passphrase: opened.secureAreas.passphrase))
            if let publicKeyOut {
                do {
                    try Data(try key.publicKey().pem.utf8).write(to: URL(fileURLWithPath: publicKeyOut))
                } catch {
                    throw WalletCLIError("cannot write the public key to \(publicKeyOut): \(error)")
                }
            }
            Output.line(key.id)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the device keys: ID, secure area, curve, hardware-bound, credentials using it.")

        @OptionGroup var listing: ListingOptions

        func run() throws {
            let keys = try listing.store.openExisting()?.keySummaries() ?? []
            if try listing.printedJSON(keys) { return }
            guard !keys.isEmpty else {
                WalletCLI.warn("No keys stored. Make one with: mdoc-holder keys create [--secure-area tpm2]")
                return
            }
            var rows = [["ID", "AREA", "CURVE", "HARDWARE", "PIN", "CREDENTIALS"]]
            for k in keys {
                rows.append([
                    k.id, k.secureArea, k.curve, k.hardwareBound ? "yes" : "no", k.requiresPassphrase ? "yes" : "no",
                    k.credentials.isEmpty ? "-" : k.credentials.joined(separator: ","),
                ])
            }
            for line in WalletCLI.table(rows) { Output.line(line) }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a device key (refused while a credential uses it, unless --with-credentials).")

        @Argument(help: ArgumentHelp("The key ID (keys list).", valueName: "id")) var id: String

        @Flag(
            help: "Delete the credentials bound to the key too (their history stays).")
        var withCredentials = false

        @OptionGroup var store: StoreOptions

        func run() throws {
            guard let opened = try store.openExisting() else { throw WalletError.unknownKey(id: id) }
            try opened.deleteKey(id: id, withCredentials: withCredentials)
            WalletCLI.warn("deleted key \(id)")
        }
    }
}
