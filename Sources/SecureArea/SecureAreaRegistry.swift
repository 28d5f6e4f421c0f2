import FoundationEssentials
import MdocCrypto

/// The secure areas a program can use, by name, and which one new keys go to by default.
/// Built from the options (`--secure-area`, `--kek-file`, `--tpm-tcti`) or the service's
/// configuration; areas connect to their backend on first use only, so a store opens, lists
/// and shows history without any of them.
public struct SecureAreaRegistry: Sendable {
    /// Where new keys go (`--secure-area`).
    public var defaultArea: SecureAreaName
    public let software: SoftwareSecureArea
    public let tpm2: TPM2SecureArea
    /// The PKCS#11 token, when one is configured (`--pkcs11-module`, `--pkcs11-token`).
    public let pkcs11: PKCS11SecureArea?
    /// The passphrase (PIN) given for keys that need one (`--key-passphrase-file`).
    public var passphrase: String?

    public init(
        defaultArea: SecureAreaName = .software, software: SoftwareSecureArea, tpm2: TPM2SecureArea,
        pkcs11: PKCS11SecureArea? = nil, passphrase: String? = nil
    ) {
        self.defaultArea = defaultArea
        self.software = software
        self.tpm2 = tpm2
        self.pkcs11 = pkcs11
        self.passphrase = passphrase
    }

    /// From the options, falling back on the environment: `--kek-file` / `CREDENTIALS_DIRECTORY`
    /// / `$XDG_CONFIG_HOME`, `--tpm-tcti` / `TPM2OPENSSL_TCTI` / `/dev/tpmrm0`.
    public static func resolve(
        defaultArea: SecureAreaName = .software, kekFile: String? = nil, kekPassphrase: String? = nil,
        tpmTCTI: String? = nil, pkcs11: PKCS11SecureArea? = nil, passphrase: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> SecureAreaRegistry {
        SecureAreaRegistry(
            defaultArea: defaultArea,
            software: SoftwareSecureArea(
                source: KeyEncryptionKeySource.resolve(kekFile: kekFile, environment: environment),
                kekPassphrase: kekPassphrase),
            tpm2: TPM2SecureArea(tcti: TPM2SecureArea.resolveTCTI(tpmTCTI, environment: environment)),
            pkcs11: pkcs11, passphrase: passphrase)
    }

    /// A software area under a fresh in-memory KEK, and a TPM only through `tpmTCTI` (tests).
    public static func ephemeral(tpmTCTI: String = "swtpm:host=127.0.0.1,port=1") -> SecureAreaRegistry {
        SecureAreaRegistry(
            software: SoftwareSecureArea(source: .given(.ephemeral()), passphraseCost: Scrypt.Cost(logN: 10)),
            tpm2: TPM2SecureArea(tcti: tpmTCTI))
    }

    /// One ``ephemeral(tpmTCTI:)`` registry for the whole process (tests, the demo): stores
    /// opened twice in one process can read each other's keys; nothing is written to disk.
    public static let inMemory = ephemeral()

    /// The area called `name`.
    public func area(_ name: SecureAreaName) throws(SecureAreaError) -> any SecureArea {
        switch name {
        case .software: return software
        case .tpm2: return tpm2
        case .pkcs11:
            guard let pkcs11 else {
                throw .notConfigured(
                    area: .pkcs11,
                    remedy: "give the token with --pkcs11-module MODULE.so --pkcs11-token LABEL --pkcs11-pin-file FILE")
            }
            return pkcs11
        }
    }

    /// The default area.
    public func defaultSecureArea() throws(SecureAreaError) -> any SecureArea { try area(defaultArea) }

    /// A usable handle on a stored key, in the area it names.
    public func deviceKey(_ stored: StoredKey) throws(SecureAreaError) -> SecureAreaKey {
        try SecureAreaKey(stored, in: try area(stored.area), passphrase: passphrase)
    }
}
