import Foundation
import MdocCrypto
import PKCS11
import SecureArea
import TestSupport

/// One backend of the contract tests, with what it needs running: the software area with a KEK
/// file in a directory of its own, the tpm2 area with a swtpm on loopback.
final class BackendUnderTest: @unchecked Sendable {
    let name: SecureAreaName
    let directory: String
    let tpm: SoftwareTPM?
    let hsm: SoftHSM?
    private(set) var tokenLabel: String?
    private var modulePath = SoftHSM.module

    init(_ name: SecureAreaName) throws {
        self.name = name
        directory = NSTemporaryDirectory() + "secure-area-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        tpm = name == .tpm2 ? try SoftwareTPM() : nil
        hsm = name == .pkcs11 ? try SoftHSM.shared() : nil
        tokenLabel = hsm?.tokenLabel
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    var kekPath: String { directory + "/kek" }

    /// A new instance of the area, as a restarted program would make it.
    func area() -> any SecureArea {
        switch name {
        case .software:
            // Made on first use through the user-configuration path rule, then read as a file.
            return SoftwareSecureArea(
                source: FileManager.default.fileExists(atPath: kekPath)
                    ? .file(path: kekPath) : .userConfiguration(path: kekPath),
                passphraseCost: Scrypt.Cost(logN: 10))
        case .tpm2:
            return TPM2SecureArea(tcti: tpm!.tcti)
        case .pkcs11:
            return PKCS11SecureArea(modulePath: modulePath, tokenLabel: tokenLabel!, pin: hsm!.pin)
        }
    }

    /// The area with a wrong PIN (pkcs11: the token's PIN; the other areas: per-key passphrases).
    func areaWithWrongPIN() -> any SecureArea {
        PKCS11SecureArea(modulePath: SoftHSM.module, tokenLabel: tokenLabel!, pin: "000000")
    }

    /// Restarts the backend on the same state: swtpm stopped and started again; the software
    /// area has nothing running (a new instance rereads its KEK file); softhsm2 is finalised
    /// and initialised again (the token reread from its store).
    func restart() throws {
        try tpm?.restart()
        if name == .pkcs11 { try PKCS11Module.load(path: SoftHSM.module).reinitialize() }
    }

    /// The same area with its backend gone: the TPM stopped, the KEK file removed, the PKCS#11
    /// module missing.
    func makeAbsent() {
        tpm?.stop()
        // No PKCS#11 middleware where the configuration says (uninstalled, or a wrong path).
        if name == .pkcs11 { modulePath = directory + "/no-such-module.so" }
        if name == .software { try? FileManager.default.removeItem(atPath: kekPath) }
    }
}
