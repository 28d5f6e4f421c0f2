import CBOR
import COSE
import FoundationEssentials
import MdocCrypto

/// What reader authentication established about who is asking. Goes to the consent prompt.
public struct ReaderAuthenticationResult: Sendable {
    public enum Status: Sendable, Equatable {
        /// No readerAuth was sent.
        case absent
        /// The signature is valid and the certificate chains to a configured reader root and
        /// fits the reader certificate profile.
        case trusted
        /// The signature is valid but the certificate is not trusted (`failure` says why).
        case untrusted
        /// The signature does not verify or the structure is broken (`failure` says why).
        case invalid
    }

    public var status: Status
    public var readerCertificate: Certificate?
    /// The whole x5chain, leaf first (empty when absent or unparseable).
    public var chain: [Certificate] = []
    /// The configured root the chain ended at, when trusted.
    public var trustAnchor: Certificate?
    public var failure: String?

    public var isTrusted: Bool { status == .trusted }

    /// The reader certificate subject, for display.
    public var readerSubject: String? { readerCertificate?.subject }

    public static let absent = ReaderAuthenticationResult(status: .absent)

    public init(
        status: Status, readerCertificate: Certificate? = nil, trustAnchor: Certificate? = nil, failure: String? = nil
    ) {
        self.status = status
        self.readerCertificate = readerCertificate
        self.trustAnchor = trustAnchor
        self.failure = failure
    }
}

/// ISO 18013-5 9.1.4 mdoc reader authentication.
public enum ReaderAuthentication {
    /// Extended key usage of mdoc reader authentication certificates.
    public static let readerAuthEKU = "1.0.18013.5.1.6"

    /// `ReaderAuthenticationBytes = #6.24(bstr .cbor ["ReaderAuthentication",
    /// SessionTranscript, ItemsRequestBytes])`, built from the bytes as they travelled.
    public static func bytes(transcript: SessionTranscript, itemsRequestBytes: EmbeddedCBOR) -> [UInt8] {
        CBOR.taggedBytes(
            CBOR.encodedArray([
                CBOR.text("ReaderAuthentication").encoded(), transcript.encoded, itemsRequestBytes.taggedEncoding,
            ]))
    }

    /// Signs a doc request as a reader: a detached COSE_Sign1 with the chain in x5chain.
    public static func sign(
        transcript: SessionTranscript, itemsRequestBytes: EmbeddedCBOR, key: PrivateKey, algorithm: SignatureAlgorithm,
        certificateChain: [Certificate]
    ) throws(ISO18013Error) -> COSESign1 {
        do {
            return try COSESign1.sign(
                payload: bytes(transcript: transcript, itemsRequestBytes: itemsRequestBytes), detached: true, key: key,
                algorithm: algorithm, unprotected: .x5chain(certificateChain.map(\.der)))
        } catch {
            throw .cose(structure: "readerAuth", error)
        }
    }

    /// Verifies one readerAuth over `payloads` (ReaderAuthenticationBytes or the All forms,
    /// computed by the caller for this session): signature with the leaf key, chain to
    /// `trustAnchors` at `time`, reader profile. A readerAuth that carries its own payload, or
    /// whose `alg` is not in the protected header, is invalid.
    public static func verify(
        _ readerAuth: COSESign1?, payloads: [[UInt8]], trustAnchors: [Certificate], at time: Date
    ) -> ReaderAuthenticationResult {
        guard let readerAuth else { return .absent }
        guard let ders = readerAuth.x5chain else {
            return .init(status: .invalid, failure: "readerAuth carries no x5chain")
        }
        let chain: [Certificate]
        do {
            chain = try ders.map { (der) throws(CryptoError) in try Certificate.cached(der: der) }
        } catch {
            return .init(status: .invalid, failure: "reader certificate does not parse: \(error)")
        }
        var result = verifyParsed(readerAuth, chain: chain, payloads: payloads, trustAnchors: trustAnchors, at: time)
        result.chain = chain
        return result
    }

    private static func verifyParsed(
        _ readerAuth: COSESign1, chain: [Certificate], payloads: [[UInt8]], trustAnchors: [Certificate], at time: Date
    ) -> ReaderAuthenticationResult {
        let leaf = chain[0]
        do {
            let key = try leaf.publicKey
            var valid = false
            for payload in payloads where try readerAuth.isValidDetachedSignature(over: payload, key: key) {
                valid = true
                break
            }
            guard valid else {
                return .init(status: .invalid, readerCertificate: leaf, failure: "readerAuth signature does not verify")
            }
        } catch {
            return .init(status: .invalid, readerCertificate: leaf, failure: "readerAuth cannot be checked: \(error)")
        }
        if let problem = profileProblem(leaf) {
            return .init(status: .untrusted, readerCertificate: leaf, failure: problem)
        }
        let validation = CertificateChainValidator.validate(chain: chain, anchors: trustAnchors, at: time)
        guard validation.isValid else {
            return .init(
                status: .untrusted, readerCertificate: leaf,
                failure: "reader certificate is not trusted: \(validation.failure ?? "no configured reader root")")
        }
        return .init(status: .trusted, readerCertificate: leaf, trustAnchor: validation.trustAnchor)
    }

    /// The reader certificate profile (Annex B): EKU for reader auth, digitalSignature, not a CA.
    static func profileProblem(_ leaf: Certificate) -> String? {
        if !leaf.extendedKeyUsage.contains(readerAuthEKU) {
            return "reader certificate lacks the mdoc reader authentication EKU \(readerAuthEKU)"
        }
        if !leaf.keyUsage.contains(.digitalSignature) {
            return "reader certificate key usage lacks digitalSignature"
        }
        if leaf.isCA { return "reader certificate is a CA certificate" }
        return nil
    }

    /// Reader authentication for a doc request: its own readerAuth and the request's
    /// readerAuthAll (1.1). Where both are present each is checked and the result is the one
    /// that did worse (a failing signature is never hidden by a good one).
    public static func verify(
        docRequest: DocRequest, in request: DeviceRequest, transcript: SessionTranscript, trustAnchors: [Certificate],
        at time: Date
    ) -> ReaderAuthenticationResult {
        let all = ReaderAuthenticationAll.verify(
            request: request, sessionTranscript: transcript, trustAnchors: trustAnchors, at: time)
        guard let auth = docRequest.readerAuth else { return all }
        let own = verify(
            auth, payloads: [bytes(transcript: transcript, itemsRequestBytes: docRequest.itemsRequestBytes)],
            trustAnchors: trustAnchors, at: time)
        guard all.status != .absent else { return own }
        return rank(all.status) < rank(own.status) ? all : own
    }

    /// Worse first: invalid, untrusted, trusted.
    private static func rank(_ status: ReaderAuthenticationResult.Status) -> Int {
        switch status {
        case .invalid: 0
        case .untrusted: 1
        case .absent, .trusted: 2
        }
    }
}
