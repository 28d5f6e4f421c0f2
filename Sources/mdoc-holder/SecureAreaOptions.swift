import ArgumentParser
import Foundation
import SecureArea

/// `--secure-area`, `--kek-file`, `--tpm-tcti`, `--key-passphrase-file`: where device keys are
/// made and how their areas are reached. Shared by every command that opens the store.
struct SecureAreaOptions: ParsableArguments {
    @Option(
        name: .customLong("secure-area"),
        help: ArgumentHelp(
            "Where new device keys go: software, tpm2 or pkcs11 (default software).", valueName: "name"))
    var secureArea: String?

    @Option(
        name: .customLong("kek-file"),
        help: ArgumentHelp(
            "The software area's key-encryption key.",
            discussion:
                "Default: $CREDENTIALS_DIRECTORY/mdoc-holder-kek under systemd, else $XDG_CONFIG_HOME/mdoc-holder/kek (created 0600 on first use).",
            valueName: "file"))
    var kekFile: String?

    @Option(
        name: .customLong("tpm-tcti"),
        help: ArgumentHelp(
            "The TPM for --secure-area tpm2 (default: TPM2OPENSSL_TCTI, else device:/dev/tpmrm0).",
            valueName: "tcti"))
    var tpmTCTI: String?

    @Option(
        name: .customLong("key-passphrase-file"),
        help: ArgumentHelp(
            "A file whose first line is the passphrase (PIN) of keys made or used with one.", valueName: "file"))
    var passphraseFile: String?

    /// The registry the options describe.
    func registry() throws -> SecureAreaRegistry {
        let name = secureArea ?? ProcessInfo.processInfo.environment["MDOC_HOLDER_SECURE_AREA"] ?? "software"
        guard let area = SecureAreaName(rawValue: name) else {
            throw ValidationError("--secure-area must be software, tpm2 or pkcs11, not \(name)")
        }
        var passphrase: String?
        if let passphraseFile {
            let text = String(decoding: try WalletCLI.readFile(passphraseFile, what: "key passphrase"), as: UTF8.self)
            passphrase = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }
        return SecureAreaRegistry.resolve(
            defaultArea: area, kekFile: kekFile, tpmTCTI: tpmTCTI, passphrase: passphrase)
    }
}
