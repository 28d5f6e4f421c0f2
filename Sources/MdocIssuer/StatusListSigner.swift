import Foundation
import MdocCrypto

/// A Status List Token signer of the test PKI: a certificate of its own issued by the IACA
/// (digitalSignature, not a CA, no extended key usage: not a document signer), so a reader
/// that trusts the IACA for a credential trusts the status lists of its issuer too.
///
/// Written next to the test PKI as `status-list.pem` and `status-list.key.pem`.
public struct StatusListSigner: Sendable {
    public static let certificateFile = "status-list.pem"
    public static let keyFile = "status-list.key.pem"

    public var certificate: Certificate
    public var key: PrivateKey

    public init(certificate: Certificate, key: PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// A fresh key on the IACA key's curve and its certificate from the IACA, valid from one
    /// day before `now` for `days` days (never past the IACA's own end).
    public static func issue(by pki: TestPKI, days: Int = 365, now: Date = Date()) throws(IssuerError)
        -> StatusListSigner
    {
        guard days > 0 else { throw .invalidArgument("the status list signer needs a positive validity") }
        let start = Date(timeIntervalSince1970: (now.timeIntervalSince1970 - 86_400).rounded(.down))
        let end = min(now.addingTimeInterval(Double(days) * 86_400), pki.iaca.notAfter)
        let country = pki.iaca.subject.split(separator: ",").lazy.compactMap { part -> String? in
            let field = part.trimmingCharacters(in: .whitespaces)
            return field.hasPrefix("C=") ? String(field.dropFirst(2)) : nil
        }.first
        do throws(CertificateBuilderError) {
            let key: PrivateKey
            do {
                key = try PrivateKey.generate(pki.iacaKey.curve)
            } catch {
                throw CertificateBuilderError.crypto(error)
            }
            var builder = CertificateBuilder(
                subject: DistinguishedName(country: country, commonName: "mdoc-holder Test Status List Signer"),
                subjectPublicKey: key.publicKey, notBefore: start, notAfter: end)
            builder.basicConstraints = .endEntity
            builder.keyUsage = .digitalSignature
            let certificate = try builder.issued(by: pki.iaca, issuerKey: pki.iacaKey)
            return StatusListSigner(certificate: certificate, key: key)
        } catch {
            throw .certificate(error)
        }
    }

    /// Writes the certificate (mode 0644) and the key (PKCS#8, mode 0600) into `directory`.
    @discardableResult
    public func save(to directory: URL) throws(IssuerError) -> [URL] {
        let certificateURL = directory.appendingPathComponent(Self.certificateFile)
        let keyURL = directory.appendingPathComponent(Self.keyFile)
        let keyPEM: String
        do {
            keyPEM = try key.pkcs8PEM()
        } catch {
            throw .crypto(error)
        }
        try IssuerFiles.write(Array(certificate.pem.utf8), to: certificateURL)
        try IssuerFiles.writeSecret(keyPEM, to: keyURL)
        return [certificateURL, keyURL]
    }

    /// Reads a certificate PEM (its first certificate is the signer) and the key that belongs to it.
    public static func load(certificate certificatePath: URL, key keyPath: URL) throws(IssuerError)
        -> StatusListSigner
    {
        let certificate: Certificate
        let key: PrivateKey
        do {
            guard let first = try Certificate.parsePEM(try IssuerFiles.readText(certificatePath)).first else {
                throw IssuerError.file(path: certificatePath.path, reason: "no certificate")
            }
            certificate = first
        } catch let error as IssuerError {
            throw error
        } catch {
            throw .file(path: certificatePath.path, reason: "\(error)")
        }
        do {
            key = try PrivateKey(pem: try IssuerFiles.readText(keyPath))
        } catch let error as IssuerError {
            throw error
        } catch {
            throw .file(path: keyPath.path, reason: "\(error)")
        }
        guard (try? certificate.publicKey) == key.publicKey else {
            throw .file(path: keyPath.path, reason: "the key does not belong to \(certificate.subject)")
        }
        return StatusListSigner(certificate: certificate, key: key)
    }
}
