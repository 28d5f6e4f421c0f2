import Foundation
import ISO18013
import MdocCrypto

/// A complete test PKI for mdoc work, following the ISO 18013-5 Annex B profiles:
///
/// - IACA: self-signed root, CA with pathLenConstraint 0, keyUsage keyCertSign + cRLSign,
///   subject C + CN, issuerAltName, cRLDistributionPoints.
/// - Document signer: issued by the IACA, EKU 1.0.18013.5.1.2 (critical), digitalSignature,
///   not a CA, issuerAltName and cRLDistributionPoints as the IACA's.
/// - Reader CA: self-signed root, CA with pathLenConstraint 0, keyCertSign + cRLSign.
/// - Reader: issued by the reader CA, EKU 1.0.18013.5.1.6 (critical), digitalSignature, not a
///   CA, subjectAltName DNS.
///
/// Test use only: the keys are stored unencrypted.
public struct TestPKI: Sendable {
    public var iaca: Certificate
    public var iacaKey: PrivateKey
    public var documentSigner: Certificate
    public var documentSignerKey: PrivateKey
    public var readerCA: Certificate
    public var readerCAKey: PrivateKey
    public var reader: Certificate
    public var readerKey: PrivateKey

    /// The validity periods of a generated PKI.
    public struct Validity: Sendable, Hashable {
        /// Start of every certificate's validity.
        public var notBefore: Date
        /// End of the document signer and reader certificates.
        public var leafNotAfter: Date
        /// End of the IACA and reader CA certificates.
        public var rootNotAfter: Date

        public init(notBefore: Date, leafNotAfter: Date, rootNotAfter: Date) {
            self.notBefore = notBefore
            self.leafNotAfter = leafNotAfter
            self.rootNotAfter = rootNotAfter
        }

        /// From one day before `now` (so clocks a little behind still accept the certificates)
        /// to `leafDays` days after `now` for the document signer and reader, `rootDays` for the
        /// roots (at least as long as the leaves). Defaults: one year and five years.
        public static func days(leaf leafDays: Int = 365, root rootDays: Int = 1826, from now: Date = Date())
            -> Validity
        {
            let day: TimeInterval = 86_400
            let start = Date(timeIntervalSince1970: (now.timeIntervalSince1970 - day).rounded(.down))
            let end = now.timeIntervalSince1970.rounded(.down)
            return Validity(
                notBefore: start, leafNotAfter: Date(timeIntervalSince1970: end + Double(leafDays) * day),
                rootNotAfter: Date(timeIntervalSince1970: end + Double(max(rootDays, leafDays)) * day))
        }
    }

    /// The PEM files of ``save(to:)`` and ``load(from:)``, in that order.
    public enum File: String, Sendable, CaseIterable {
        case iaca = "iaca.pem"
        case iacaKey = "iaca.key.pem"
        case documentSigner = "ds.pem"
        case documentSignerKey = "ds.key.pem"
        case readerCA = "reader-ca.pem"
        case readerCAKey = "reader-ca.key.pem"
        case reader = "reader.pem"
        case readerKey = "reader.key.pem"

        /// Whether the file holds a private key (written with mode 0600).
        public var isPrivateKey: Bool { rawValue.hasSuffix(".key.pem") }
    }

    public init(
        iaca: Certificate, iacaKey: PrivateKey, documentSigner: Certificate, documentSignerKey: PrivateKey,
        readerCA: Certificate, readerCAKey: PrivateKey, reader: Certificate, readerKey: PrivateKey
    ) {
        self.iaca = iaca
        self.iacaKey = iacaKey
        self.documentSigner = documentSigner
        self.documentSignerKey = documentSignerKey
        self.readerCA = readerCA
        self.readerCAKey = readerCAKey
        self.reader = reader
        self.readerKey = readerKey
    }

    /// Generates fresh keys on `curve` and the four certificates.
    ///
    /// - Parameters:
    ///   - curve: curve of all four keys; P-256 by default (what every reader supports).
    ///   - validity: defaults to ``Validity/days(leaf:root:from:)`` (now - 1 day to + 1 year,
    ///     roots + 5 years).
    ///   - country: the C of every subject (ISO 3166-1 alpha-2); an mDL's issuing_country must
    ///     match its IACA's.
    public static func generate(curve: Curve = .p256, validity: Validity = .days(), country: String = "US")
        throws(IssuerError) -> TestPKI
    {
        guard curve.preferredSignatureAlgorithm != nil else {
            throw .invalidArgument("curve \(curve.rawValue) cannot sign; use P-256, P-384, P-521 or Ed25519")
        }
        do throws(CertificateBuilderError) {
            let iacaKey = try generateKey(curve)
            let dsKey = try generateKey(curve)
            let readerCAKey = try generateKey(curve)
            let readerKey = try generateKey(curve)
            let issuerURL = CertificateBuilder.GeneralName.uri("https://issuer.example.org")
            let issuerCRL = CertificateBuilder.GeneralName.uri("https://issuer.example.org/crl/iaca.crl")

            var builder = CertificateBuilder(
                subject: DistinguishedName(country: country, commonName: "mdoc-holder Test IACA"),
                subjectPublicKey: iacaKey.publicKey, notBefore: validity.notBefore,
                notAfter: validity.rootNotAfter)
            builder.basicConstraints = .certificateAuthority(pathLength: 0)
            builder.keyUsage = [.keyCertSign, .cRLSign]
            builder.issuerAlternativeNames = [issuerURL]
            builder.crlDistributionPoints = [issuerCRL]
            let iaca = try builder.selfSigned(with: iacaKey)

            builder = CertificateBuilder(
                subject: DistinguishedName(country: country, commonName: "mdoc-holder Test Document Signer"),
                subjectPublicKey: dsKey.publicKey, notBefore: validity.notBefore, notAfter: validity.leafNotAfter)
            builder.basicConstraints = .endEntity
            builder.keyUsage = .digitalSignature
            builder.extendedKeyUsage = [IssuerDataAuthentication.documentSignerEKU]
            builder.issuerAlternativeNames = [issuerURL]
            builder.crlDistributionPoints = [issuerCRL]
            let ds = try builder.issued(by: iaca, issuerKey: iacaKey)

            builder = CertificateBuilder(
                subject: DistinguishedName(country: country, commonName: "mdoc-holder Test Reader CA"),
                subjectPublicKey: readerCAKey.publicKey, notBefore: validity.notBefore,
                notAfter: validity.rootNotAfter)
            builder.basicConstraints = .certificateAuthority(pathLength: 0)
            builder.keyUsage = [.keyCertSign, .cRLSign]
            let readerCA = try builder.selfSigned(with: readerCAKey)

            builder = CertificateBuilder(
                subject: DistinguishedName(country: country, commonName: "mdoc-holder Test Reader"),
                subjectPublicKey: readerKey.publicKey, notBefore: validity.notBefore,
                notAfter: validity.leafNotAfter)
            builder.basicConstraints = .endEntity
            builder.keyUsage = .digitalSignature
            builder.extendedKeyUsage = [ReaderAuthentication.readerAuthEKU]
            builder.subjectAlternativeNames = [.dns("reader.example.org")]
            let reader = try builder.issued(by: readerCA, issuerKey: readerCAKey)

            return TestPKI(
                iaca: iaca, iacaKey: iacaKey, documentSigner: ds, documentSignerKey: dsKey, readerCA: readerCA,
                readerCAKey: readerCAKey, reader: reader, readerKey: readerKey)
        } catch {
            throw .certificate(error)
        }
    }

    private static func generateKey(_ curve: Curve) throws(CertificateBuilderError) -> PrivateKey {
        do {
            return try PrivateKey.generate(curve)
        } catch {
            throw .crypto(error)
        }
    }

    /// The certificate or key text of one file.
    func pem(_ file: File) throws(IssuerError) -> String {
        do {
            switch file {
            case .iaca: return iaca.pem
            case .iacaKey: return try iacaKey.pkcs8PEM()
            case .documentSigner: return documentSigner.pem
            case .documentSignerKey: return try documentSignerKey.pkcs8PEM()
            case .readerCA: return readerCA.pem
            case .readerCAKey: return try readerCAKey.pkcs8PEM()
            case .reader: return reader.pem
            case .readerKey: return try readerKey.pkcs8PEM()
            }
        } catch {
            throw .crypto(error)
        }
    }

    /// The certificate a file holds (`nil` for key files).
    public func certificate(_ file: File) -> Certificate? {
        switch file {
        case .iaca: return iaca
        case .documentSigner: return documentSigner
        case .readerCA: return readerCA
        case .reader: return reader
        default: return nil
        }
    }

    /// Writes the eight PEM files (see ``File``) into `directory`, creating it if needed:
    /// certificates with mode 0644, private keys (PKCS#8, unencrypted) with mode 0600.
    ///
    /// - Returns: the files written, in ``File`` order.
    @discardableResult
    public func save(to directory: URL) throws(IssuerError) -> [URL] {
        try IssuerFiles.makeDirectory(directory)
        var written: [URL] = []
        for file in File.allCases {
            let url = directory.appendingPathComponent(file.rawValue)
            let text = try pem(file)
            if file.isPrivateKey {
                try IssuerFiles.writeSecret(text, to: url)
            } else {
                try IssuerFiles.write(Array(text.utf8), to: url)
            }
            written.append(url)
        }
        return written
    }

    /// Reads the eight PEM files from `directory`, checking that each key belongs to its
    /// certificate.
    public static func load(from directory: URL) throws(IssuerError) -> TestPKI {
        func certificate(_ file: File) throws(IssuerError) -> Certificate {
            let url = directory.appendingPathComponent(file.rawValue)
            do {
                return try Certificate.parsePEM(try IssuerFiles.readText(url))[0]
            } catch let error as IssuerError {
                throw error
            } catch {
                throw .file(path: url.path, reason: "\(error)")
            }
        }
        func key(_ file: File, for certificate: Certificate) throws(IssuerError) -> PrivateKey {
            let url = directory.appendingPathComponent(file.rawValue)
            let key: PrivateKey
            do {
                key = try PrivateKey(pem: try IssuerFiles.readText(url))
            } catch let error as IssuerError {
                throw error
            } catch {
                throw .file(path: url.path, reason: "\(error)")
            }
            guard (try? certificate.publicKey) == key.publicKey else {
                throw .file(path: url.path, reason: "the key does not belong to \(certificate.subject)")
            }
            return key
        }
        let iaca = try certificate(.iaca)
        let ds = try certificate(.documentSigner)
        let readerCA = try certificate(.readerCA)
        let reader = try certificate(.reader)
        return TestPKI(
            iaca: iaca, iacaKey: try key(.iacaKey, for: iaca), documentSigner: ds,
            documentSignerKey: try key(.documentSignerKey, for: ds), readerCA: readerCA,
            readerCAKey: try key(.readerCAKey, for: readerCA), reader: reader,
            readerKey: try key(.readerKey, for: reader))
    }
}
