import CBOR
import COSE
import FoundationEssentials
import JOSE
import MdocCrypto

/// A Status List Token (draft-ietf-oauth-status-list section 5): the signed list, its
/// subject (the URI credentials refer to), its times, and the signer's certificate chain.
///
/// ``init(bytes:format:limits:)`` reads it; ``verify(uri:trustAnchors:at:)`` makes every
/// check before a status from it may be believed.
public struct StatusListToken: Sendable {
    /// The signed envelope, as it travelled.
    enum Envelope: Sendable {
        case cwt(COSESign1)
        case jwt(JWS)
    }

    public let format: StatusListFormat
    /// `sub` (CWT claim 2): the URI of this token.
    public let subject: String
    /// `iat` (CWT claim 6).
    public let issuedAt: Date
    /// `exp` (CWT claim 4), if any.
    public let expiresAt: Date?
    /// `ttl` (CWT claim 65534), seconds: how long the token may be cached.
    public let timeToLive: UInt64?
    public let statusList: StatusList
    /// The signer's certificates (x5chain in the CWT's protected header, or the JWT's x5c),
    /// leaf first; empty when the token names its key otherwise (`kid`).
    public let certificateChain: [Certificate]
    let envelope: Envelope

    /// Reads a token of `format` (a CWT: the COSE_Sign1 bytes, tag 18 or not; a JWT: the
    /// compact serialization, surrounding white space ignored). Nothing is verified yet.
    public init(bytes: [UInt8], format: StatusListFormat, limits: StatusListLimits = StatusListLimits())
        throws(StatusListError)
    {
        guard bytes.count <= limits.maximumTokenBytes else { throw .tokenTooLarge(limit: limits.maximumTokenBytes) }
        switch format {
        case .cwt: self = try Self.readCWT(bytes, limits: limits)
        case .jwt: self = try Self.readJWT(bytes, limits: limits)
        }
    }

    init(
        format: StatusListFormat, subject: String, issuedAt: Date, expiresAt: Date?, timeToLive: UInt64?,
        statusList: StatusList, certificateChain: [Certificate], envelope: Envelope
    ) {
        self.format = format
        self.subject = subject
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.timeToLive = timeToLive
        self.statusList = statusList
        self.certificateChain = certificateChain
        self.envelope = envelope
    }

    /// Checks the signature with `key` alone (no certificate): for a token whose key is known
    /// otherwise, as the draft's examples (`kid` "12").
    public func verifySignature(with key: PublicKey) throws(StatusListError) {
        switch envelope {
        case .cwt(let sign1):
            let valid: Bool
            do throws(COSEError) {
                valid = try sign1.isValidAttachedSignature(key: key)
            } catch {
                throw .badSignature("\(error)")
            }
            guard valid else { throw .badSignature("wrong signature") }
        case .jwt(let jws):
            do throws(JOSEError) {
                try jws.verify(with: key)
            } catch {
                throw .badSignature("\(error)")
            }
        }
    }

    /// Every check a status from this token needs (section 8.3):
    /// - the signer certificate (first of x5chain / x5c) chains to `trustAnchors` at `time`
    ///   (the anchors that authenticated the credential's issuer), and the signature verifies
    ///   with its key;
    /// - `sub` is `uri`;
    /// - `iat` is not after `time` (one minute of clock skew allowed) and `exp`, if any, is after it.
    ///
    /// - Returns: the anchor the signer chains to.
    @discardableResult
    public func verify(uri: String, trustAnchors: [Certificate], at time: Date) throws(StatusListError)
        -> Certificate
    {
        guard let leaf = certificateChain.first else { throw .noSignerCertificate }
        let path = CertificateChainValidator.validate(chain: certificateChain, anchors: trustAnchors, at: time)
        guard path.isValid, let anchor = path.trustAnchor else {
            throw .untrustedSigner(path.failure ?? "no path to a trust anchor")
        }
        let key: PublicKey
        do throws(CryptoError) {
            key = try leaf.publicKey
        } catch {
            throw .badSignature("the signer certificate's key cannot be used: \(error)")
        }
        try verifySignature(with: key)
        guard subject == uri else { throw .subjectMismatch }
        guard issuedAt <= time.addingTimeInterval(Self.clockSkew) else { throw .notYetValid }
        if let expiresAt, expiresAt <= time { throw .expired }
        return anchor
    }

    /// The clock skew allowed on `iat`.
    public static let clockSkew: TimeInterval = 60

    /// Until when a copy fetched at `fetchedAt` may be used: `exp` and `fetchedAt + ttl`,
    /// whichever comes first; nil when the token sets neither (do not cache).
    public func cacheExpiry(fetchedAt: Date) -> Date? {
        let byTTL = timeToLive.map { fetchedAt.addingTimeInterval(TimeInterval(min($0, UInt64(Int32.max)))) }
        switch (expiresAt, byTTL) {
        case (let exp?, let ttl?): return min(exp, ttl)
        case (let exp?, nil): return exp
        case (nil, let ttl?): return ttl
        case (nil, nil): return nil
        }
    }
}
