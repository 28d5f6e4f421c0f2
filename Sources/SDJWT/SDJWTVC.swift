import FoundationEssentials
import JOSE
import MdocCrypto

/// An SD-JWT VC as issued (IETF SD-JWT VC): an SD-JWT whose issuer-signed JWT has `typ`
/// `dc+sd-jwt` and carries `vct`, `iss` and the holder's key in `cnf.jwk`, with every
/// Disclosure.
///
/// ``init(issued:)`` checks the form and the Disclosures; ``verifyIssuer(trustAnchors:at:)``
/// and ``checkValidity(at:)`` the rest, so a store can run them in the order it reports.
public struct SDJWTVC: Sendable {
    /// The `typ` values taken for an SD-JWT VC: the current one and the one before the
    /// media type was renamed.
    public static let types: Set<String> = ["dc+sd-jwt", "vc+sd-jwt"]

    public let sdJWT: SDJWT
    /// The claims with every Disclosure in place.
    public let claims: DisclosedClaims
    /// `vct`: the credential type (the role a docType has for an mdoc).
    public let vct: String
    /// `iss`.
    public let issuer: String
    /// `iat`, `nbf` and `exp`, when present.
    public let issuedAt: Date?
    public let notBefore: Date?
    public let expires: Date?
    /// `cnf.jwk`: the key a Key Binding JWT must be signed with.
    public let holderKey: PublicKey
    /// `status` (a status list reference), kept as issued.
    public let status: JSONValue?

    /// Reads an issued SD-JWT VC (`<JWT>~<Disclosures>~`, no Key Binding JWT).
    ///
    /// - Throws: ``SDJWTError`` when the form, the `typ`, a required claim (`vct`, `iss`,
    ///   `cnf.jwk`) or the Disclosures are wrong.
    public init(issued compact: String) throws(SDJWTError) {
        let sdJWT = try SDJWT(compact: compact)
        guard sdJWT.keyBindingJWT == nil else {
            throw .notAnSDJWTVC("it ends with a Key Binding JWT: that is a presentation, not an issued credential")
        }
        guard let type = sdJWT.issuerSignedJWT.type, Self.types.contains(type) else {
            throw .notAnSDJWTVC("the JWT typ is \(sdJWT.issuerSignedJWT.type ?? "missing"), not dc+sd-jwt")
        }
        let claims = try sdJWT.processed()
        guard let vct = claims.claims["vct"]?.stringValue, !vct.isEmpty else { throw .notAnSDJWTVC("there is no vct") }
        guard let issuer = claims.claims["iss"]?.stringValue, !issuer.isEmpty else {
            throw .notAnSDJWTVC("there is no iss")
        }
        self.sdJWT = sdJWT
        self.claims = claims
        self.vct = vct
        self.issuer = issuer
        issuedAt = try Self.time(claims.claims, "iat")
        notBefore = try Self.time(claims.claims, "nbf")
        expires = try Self.time(claims.claims, "exp")
        holderKey = try KeyBindingJWT.holderKey(of: sdJWT)
        status = claims.claims["status"]
    }

    /// The issuer-signed JWT with its Disclosures, as stored and presented from.
    public var compact: String { sdJWT.withoutKeyBinding }

    /// The hash function of the Disclosure digests.
    public var hashAlgorithm: SDHashAlgorithm { sdJWT.hashAlgorithm }

    /// The paths of the claims a verifier can be shown, without the JWT's own registered
    /// claims (`iss`, `iat`, `nbf`, `exp`, `cnf`, `vct`, `status`) or what is inside them.
    public var claimPaths: [ClaimPath] {
        claims.claimPaths.map(\.path).filter { path in
            guard case .name(let first) = path.components.first else { return true }
            return !Self.registeredClaims.contains(first)
        }
    }

    static let registeredClaims: Set<String> = [
        "iss", "iat", "nbf", "exp", "cnf", "vct", "status", "sub", "vct#integrity",
    ]

    /// Checks the issuer's signature with the first certificate of the `x5c` header, and that
    /// certificate's chain to one of `trustAnchors` at `time`. Returns the anchor's subject.
    ///
    /// - Throws: ``SDJWTError/issuerNotTrusted(_:)`` naming what failed.
    @discardableResult
    public func verifyIssuer(trustAnchors: [Certificate], at time: Date) throws(SDJWTError) -> String {
        do {
            return try sdJWT.issuerSignedJWT.verifyWithCertificateChain(anchors: trustAnchors, at: time).subject
        } catch {
            switch error {
            case .unreadable(let why): throw .issuerNotTrusted("the x5c header cannot be read (\(why))")
            case .missing: throw .issuerNotTrusted("the JWT has no x5c certificate chain to check the issuer with")
            case .untrusted(let leaf, let why):
                throw .issuerNotTrusted("the issuer certificate \(leaf.subject) is not trusted: \(why)")
            case .signature(_, let why):
                throw .issuerNotTrusted("the issuer signature does not verify with its certificate (\(why))")
            }
        }
    }

    /// Whether the issuer-signed JWT names its key by an `x5c` chain (else a verifier needs
    /// the issuer's published keys, ``JWTVCIssuerMetadata``).
    public var hasCertificateChain: Bool { sdJWT.issuerSignedJWT.header["x5c"] != nil }

    /// Checks the issuer's signature with the keys its JWT VC Issuer Metadata publishes (the
    /// one whose `kid` the JWT names, else each in turn).
    ///
    /// - Throws: ``SDJWTError/issuerNotTrusted(_:)`` when none verifies it.
    public func verifyIssuer(keys: [JWK]) throws(SDJWTError) {
        let jwt = sdJWT.issuerSignedJWT
        let named = jwt.keyID.map { kid in keys.filter { $0.keyID == kid } } ?? keys
        guard !named.isEmpty else {
            throw .issuerNotTrusted("the issuer publishes no key with the JWT's kid")
        }
        for key in named {
            guard let publicKey = try? key.publicKey() else { continue }
            if (try? jwt.verify(with: publicKey)) != nil { return }
        }
        throw .issuerNotTrusted("the issuer signature does not verify with the keys the issuer publishes")
    }

    /// Checks `nbf` and `exp` against `time`.
    public func checkValidity(at time: Date) throws(SDJWTError) {
        if let notBefore, time < notBefore { throw .notYetValid(notBefore) }
        if let expires, time > expires { throw .expired(expires) }
    }

    private static func time(_ claims: [String: JSONValue], _ name: String) throws(SDJWTError) -> Date? {
        guard let value = claims[name] else { return nil }
        guard let seconds = value.numberValue, seconds.isFinite else { throw .notAnSDJWTVC("\(name) is not a number") }
        return Date(timeIntervalSince1970: seconds)
    }
}
