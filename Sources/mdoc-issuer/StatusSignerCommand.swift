import ArgumentParser
import CommandLineSupport
import Foundation
import MdocIssuer

/// `mdoc-issuer status-signer --pki DIR`: a status list signer certificate under the test IACA.
struct StatusSignerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status-signer",
        abstract: "Issue a Status List Token signer certificate from the test PKI's IACA.",
        discussion: """
            Writes status-list.pem and status-list.key.pem (mode 0600) into the PKI directory: a certificate \
            of its own under the IACA (digitalSignature, no document signer EKU).
            """)

    @Option(help: "Directory of the test PKI (as written by `mdoc-issuer pki`).")
    var pki: String

    @Option(help: "Days the certificate stays valid (never past the IACA).")
    var validDays: Int = 365

    func validate() throws {
        guard validDays > 0 else { throw ValidationError("--valid-days must be positive") }
    }

    func run() throws {
        let directory = URL(fileURLWithPath: pki)
        let signer = try StatusListSigner.issue(by: try TestPKI.load(from: directory), days: validDays)
        let written = try signer.save(to: directory)
        Output.line("status list signer written to \(directory.path):")
        Output.line(
            "  \(written[0].lastPathComponent)\t\(signer.certificate.subject)  (valid until \(PKICommand.day(signer.certificate.notAfter)))"
        )
        Output.line("  \(written[1].lastPathComponent)\tprivate key, mode 0600 (test use only)")
    }
}
