import ArgumentParser
import FoundationEssentials
import SecureArea

/// `--secure-area`, `--kek-file`, `--tpm-tcti`, `--key-passphrase-file`: where device keys are
/// made and how their areas are reached. Shared by every command that opens the store.
struct SecureAreaOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Where new device keys go: software, tpm2 or pkcs11 (default software).", valueName: "name"))
    var secureArea: String?

    @Option(
        help: ArgumentHelp(
            "The software area's key-encryption key.",
            discussion:
                "Default: $CREDENTIALS_DIRECTORY/mdoc-holder-kek under systemd, else $XDG_CONFIG_HOME/mdoc-holder/kek (created 0600 on first use).",
            valueName: "file"))
    var kekFile: String?

    @Option(
        help: ArgumentHelp(
            "A file whose first line is the passphrase of a passphrase-protected key-encryption key (a new one is made protected).",
            valueName: "file"))
    var kekPassphraseFile: String?

    @Option(
        help: ArgumentHelp(
            "The TPM for --secure-area tpm2 (default: TPM2OPENSSL_TCTI, else device:/dev/tpmrm0).",
            valueName: "tcti"))
    var tpmTCTI: String?

    @Option(
        name: .customLong("key-passphrase-file"),
        help: ArgumentHelp(
            "A file whose first line is the passphrase (PIN) of keys made or used with one.", valueName: "file"))
    var passphraseFile: String?

    @Option(
        help: ArgumentHelp("The PKCS#11 module of the token for --secure-area pkcs11.", valueName: "so"))
    var pkcs11Module: String?

    @Option(
        help: ArgumentHelp("The label of the PKCS#11 token new keys are made on.", valueName: "label"))
    var pkcs11Token: String?

    @Option(
        help: ArgumentHelp("A file whose first line is the token's user PIN.", valueName: "file"))
    var pkcs11PINFile: String?

    /// The options as plain values.
    var values: SecureAreaValues {
        SecureAreaValues(
            secureArea: secureArea, kekFile: kekFile, kekPassphraseFile: kekPassphraseFile, tpmTCTI: tpmTCTI,
            passphraseFile: passphraseFile, pkcs11Module: pkcs11Module, pkcs11Token: pkcs11Token,
            pkcs11PINFile: pkcs11PINFile)
    }

    /// The registry the options describe.
    func registry() throws -> SecureAreaRegistry { try values.registry() }
}

/// What ``SecureAreaOptions`` were given, as plain values (``PresentCommandLine`` reads them
/// without ArgumentParser): every one nil when not given.
struct SecureAreaValues: Equatable, Sendable {
    var secureArea: String?
    var kekFile: String?
    var kekPassphraseFile: String?
    var tpmTCTI: String?
    var passphraseFile: String?
    var pkcs11Module: String?
    var pkcs11Token: String?
    var pkcs11PINFile: String?

    /// The registry the options describe.
    func registry() throws -> SecureAreaRegistry {
        let name = secureArea ?? ProcessInfo.processInfo.environment["MDOC_HOLDER_SECURE_AREA"] ?? "software"
        guard let area = SecureAreaName(rawValue: name) else {
            throw ValidationError("--secure-area must be software, tpm2 or pkcs11, not \(name)")
        }
        let passphrase = try passphraseFile.map { try WalletCLI.firstLine(of: $0, what: "key passphrase") }
        let kekPassphrase = try kekPassphraseFile.map {
            try WalletCLI.firstLine(of: $0, what: "key-encryption key passphrase")
        }
        var pkcs11: PKCS11SecureArea?
        if let pkcs11Module {
            guard let pkcs11Token else { throw ValidationError("--pkcs11-module needs --pkcs11-token LABEL") }
            let pin = try pkcs11PINFile.map { try WalletCLI.firstLine(of: $0, what: "PKCS#11 PIN") }
            pkcs11 = PKCS11SecureArea(modulePath: pkcs11Module, tokenLabel: pkcs11Token, pin: pin)
        }
        return SecureAreaRegistry.resolve(
            defaultArea: area, kekFile: kekFile, kekPassphrase: kekPassphrase, tpmTCTI: tpmTCTI, pkcs11: pkcs11,
            passphrase: passphrase)
    }
}
