internal import COpenSSL
import FoundationEssentials
import Synchronization

/// An X.509 certificate. Owns an OpenSSL `X509`, freed on deinit.
///
/// Sendable: the certificate is never modified after initialization; what is computed on
/// first use (its public key, subject and decoded extensions) is stored once, under a lock or
/// by an atomic exchange (OpenSSL's internal caches are filled under its own lock).
public final class Certificate: @unchecked Sendable, Equatable, CustomStringConvertible {
    /// The DER encoding.
    public let der: [UInt8]
    /// The OpenSSL certificate.
    let x509: OpaquePointer
    /// ``publicKey``, made on first use.
    private let subjectKey = Mutex<PublicKey?>(nil)
    /// ``subject``, printed on first use (every consent prompt and history entry names it).
    private let subjectName = Mutex<String?>(nil)
    /// ``extensions``, decoded on first use and held (+1) until deinit; read without a lock.
    let decodedExtensions = Atomic<Unmanaged<CertificateExtensions>?>(nil)

    /// Takes ownership of `x509`, which is freed even if this throws.
    init(adopting x509: OpaquePointer) throws(CryptoError) {
        guard let der = OpenSSLDER.encode({ i2d_X509(x509, $0) }) else {
            X509_free(x509)
            throw .certificateParse("cannot re-encode the certificate (\(drainOpenSSLErrors()))")
        }
        self.der = der
        self.x509 = x509
    }

    deinit {
        decodedExtensions.load(ordering: .acquiring)?.release()
        X509_free(x509)
    }

    /// A certificate from its DER encoding, which must be exactly one certificate.
    public convenience init(der: [UInt8]) throws(CryptoError) {
        let parsed = der.withUnsafeBufferPointer { buffer -> (OpaquePointer?, Int) in
            var cursor = buffer.baseAddress
            let x509 = d2i_X509(nil, &cursor, buffer.count)
            return (x509, x509 == nil ? 0 : cursor! - buffer.baseAddress!)
        }
        guard let x509 = parsed.0 else {
            throw .certificateParse("not a DER X.509 certificate (\(drainOpenSSLErrors()))")
        }
        guard parsed.1 == der.count else {
            X509_free(x509)
            throw .certificateParse("\(der.count - parsed.1) bytes follow the certificate")
        }
        try self.init(adopting: x509)
    }

    /// The certificates parsed most recently by ``cached(der:)``.
    private static let recent = RecentlyUsed<Certificate>(capacity: 64)

    /// The certificate with this DER encoding: the same object as the last time these bytes
    /// were parsed, when they were among the last 64, otherwise a new one (which is kept).
    ///
    /// For certificates that come back session after session: a reader's chain in its
    /// readerAuth, a document signer in issuerAuth, a verifier's x5c. Parsing one costs
    /// OpenSSL 3.0 about twice an ECDSA verification (its public key goes through the generic
    /// decoder); a certificate is immutable, so sharing the parsed object changes nothing else.
    public static func cached(der: [UInt8]) throws(CryptoError) -> Certificate {
        if let hit = recent.find({ $0.der == der }) { return hit }
        let parsed = try Certificate(der: der)
        recent.remember(parsed)
        return parsed
    }

    /// All certificates of a PEM bundle ("BEGIN CERTIFICATE" blocks), in order. Text outside
    /// the blocks is ignored.
    ///
    /// - Throws: ``CryptoError/certificateParse(_:)`` if there is no certificate or a block does
    ///   not parse.
    public static func parsePEM(_ pem: String) throws(CryptoError) -> [Certificate] {
        let parsed = MemoryBIO.reading(Array(pem.utf8)) { bio -> Result<[Certificate], CryptoError> in
            var certificates: [Certificate] = []
            while true {
                guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else {
                    let error = ERR_peek_last_error()
                    if ERR_GET_LIB(error) == ERR_LIB_PEM, ERR_GET_REASON(error) == PEM_R_NO_START_LINE {
                        clearOpenSSLErrors()  // the normal end of the input
                        break
                    }
                    return .failure(
                        .certificateParse(
                            "PEM certificate \(certificates.count + 1) does not parse (\(drainOpenSSLErrors()))"))
                }
                do throws(CryptoError) {
                    certificates.append(try Certificate(adopting: x509))
                } catch {
                    return .failure(error)
                }
            }
            return .success(certificates)
        }
        guard let parsed else { throw .fromOpenSSL("BIO_new_mem_buf") }
        let certificates = try parsed.get()
        guard !certificates.isEmpty else { throw .certificateParse("no PEM certificate found") }
        return certificates
    }

    /// The PEM encoding ("BEGIN CERTIFICATE"), with a final newline.
    public var pem: String {
        PEMEncoding.encode(der, label: "CERTIFICATE")
    }

    /// The subject name on one line, RFC 2253 style, most specific first (e.g. "CN=reader,C=US").
    /// Non-ASCII characters are shown as UTF-8 rather than escaped.
    public var subject: String {
        if let name = subjectName.withLock({ $0 }) { return name }
        let name = Self.displayName(X509_get_subject_name(x509))
        subjectName.withLock { $0 = name }
        return name
    }

    /// The issuer name, in the same form as ``subject``.
    public var issuer: String {
        Self.displayName(X509_get_issuer_name(x509))
    }

    /// The serial number in lowercase hexadecimal (as many digits as its bytes; "-" if negative).
    public var serialNumberHex: String {
        guard let bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x509), nil) else {
            clearOpenSSLErrors()
            return ""
        }
        defer { BN_free(bn) }
        guard let hex = BN_bn2hex(bn) else {
            clearOpenSSLErrors()
            return ""
        }
        defer { mdoc_openssl_free(hex) }
        return String(cString: hex).lowercased()
    }

    /// The start of the validity period.
    public var notBefore: Date {
        Self.date(X509_get0_notBefore(x509))
    }

    /// The end of the validity period.
    public var notAfter: Date {
        Self.date(X509_get0_notAfter(x509))
    }

    /// The subject public key.
    ///
    /// - Throws: ``CryptoError/unsupportedCurve(_:)`` for keys that are not on a supported curve
    ///   (RSA, for instance).
    public var publicKey: PublicKey {
        get throws(CryptoError) {
            if let key = subjectKey.withLock({ $0 }) { return key }
            let key = try readPublicKey()
            subjectKey.withLock { $0 = key }
            return key
        }
    }

    private func readPublicKey() throws(CryptoError) -> PublicKey {
        // A key of our own with the same coordinates: the certificate's cached key object is
        // shared with OpenSSL and is only read.
        guard let shared = X509_get0_pubkey(x509) else {
            throw .certificateParse("the subject public key cannot be read (\(drainOpenSSLErrors()))")
        }
        return try PublicKey(copying: shared)
    }

    /// The SHA-256 of the DER encoding.
    public var sha256Fingerprint: [UInt8] {
        Digest.sha256(der)
    }

    /// Whether subject and issuer names are equal (a root or a self-issued intermediate).
    public var isSelfIssued: Bool {
        X509_NAME_cmp(X509_get_subject_name(x509), X509_get_issuer_name(x509)) == 0
    }

    /// Same DER encoding.
    public static func == (a: Certificate, b: Certificate) -> Bool {
        a.der == b.der
    }

    /// The subject, for logs.
    public var description: String { "Certificate(\(subject))" }

    /// A name printed with RFC 2253 flags minus the escaping of non-ASCII bytes.
    static func displayName(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        let flags = mdoc_XN_FLAG_RFC2253() & ~UInt(ASN1_STRFLGS_ESC_MSB)
        let text = MemoryBIO.collecting { bio in X509_NAME_print_ex(bio, name, 0, flags) >= 0 }
        return text.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// An ASN.1 time as a `Date` (the distant past if it cannot be read).
    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else {
            clearOpenSSLErrors()
            return .distantPast
        }
        let days = daysSinceEpoch(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
        let seconds = days * 86_400 + Int(parts.tm_hour) * 3_600 + Int(parts.tm_min) * 60 + Int(parts.tm_sec)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
