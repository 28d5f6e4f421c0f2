import ArgumentParser
import CommandLineSupport
import Foundation
import MdocCrypto
import MdocIssuer

/// `mdoc-issuer pki --out DIR`: a fresh test PKI as eight PEM files.
struct PKICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pki",
        abstract: "Generate a test PKI: IACA, document signer, reader CA and reader certificates with their keys.",
        discussion: """
            Writes iaca.pem iaca.key.pem ds.pem ds.key.pem reader-ca.pem reader-ca.key.pem reader.pem \
            reader.key.pem into the directory (keys with mode 0600). Validity starts one day before now.
            """)

    @Option(help: "Directory to write the PEM files into (created if missing; existing files are replaced).")
    var out: String

    @Option(help: "Days the document signer and reader certificates stay valid.")
    var validDays: Int = 365

    @Option(help: "Days the IACA and reader CA roots stay valid (default: 5 years, at least --valid-days).")
    var rootValidDays: Int?

    @Option(help: "Curve of the keys: P-256, P-384, P-521 or Ed25519.")
    var curve: String = "P-256"

    @Option(help: "Country (ISO 3166-1 alpha-2) in every subject; an mDL's issuing_country must match it.")
    var country: String = "US"

    func validate() throws {
        guard validDays > 0 else { throw ValidationError("--valid-days must be positive") }
        if let rootValidDays, rootValidDays < validDays {
            throw ValidationError("--root-valid-days must be at least --valid-days")
        }
        guard let curve = Curve(rawValue: curve), curve.preferredSignatureAlgorithm != nil else {
            throw ValidationError("--curve must be a signing curve: P-256, P-384, P-521 or Ed25519")
        }
    }

    func run() throws {
        let curve = Curve(rawValue: self.curve)!
        let validity = TestPKI.Validity.days(leaf: validDays, root: rootValidDays ?? max(1826, validDays))
        let pki = try TestPKI.generate(curve: curve, validity: validity, country: country)
        let directory = URL(fileURLWithPath: out)
        let written = try pki.save(to: directory)
        Output.line("test PKI (\(curve.rawValue)) written to \(directory.path):")
        for (file, url) in zip(TestPKI.File.allCases, written) {
            if let certificate = pki.certificate(file) {
                let until = Self.day(certificate.notAfter)
                Output.line("  \(url.lastPathComponent)\t\(certificate.subject)  (valid until \(until))")
            } else {
                Output.line("  \(url.lastPathComponent)\tprivate key, mode 0600 (test use only)")
            }
        }
    }

    static func day(_ date: Date) -> String {
        String(ISO8601DateFormatter().string(from: date).prefix(10))
    }
}
