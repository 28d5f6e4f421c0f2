import CBOR
import COSE
import FoundationEssentials
import MdocCrypto

extension StatusListToken {
    /// CWT claim keys of a Status List Token (RFC 8392; draft-ietf-oauth-status-list 5.2).
    enum CWTClaim {
        static let subject: CBOR = 2
        static let expiration: CBOR = 4
        static let issuedAt: CBOR = 6
        static let timeToLive: CBOR = 65534
        static let statusList: CBOR = 65533
    }

    /// The COSE `typ` header label (RFC 9596).
    static let coseTypeLabel: CBOR = 16

    static func readCWT(_ bytes: [UInt8], limits: StatusListLimits) throws(StatusListError) -> StatusListToken {
        let sign1: COSESign1
        let claims: CBOR
        do {
            sign1 = try COSESign1(cbor: CBOR.decode(bytes))
            guard let payload = sign1.payload else { throw StatusListError.malformedToken("the payload is detached") }
            claims = try CBOR.decode(payload)
        } catch let error as StatusListError {
            throw error
        } catch {
            throw .malformedToken("not a COSE_Sign1 holding a CWT: \(error)")
        }
        guard sign1.protected.map[coseTypeLabel]?.textValue == StatusListFormat.cwt.mediaType else {
            throw .malformedToken("the protected header's typ (16) is not application/statuslist+cwt")
        }
        guard case .map = claims else { throw .malformedToken("the CWT claims are not a map") }
        guard let subject = claims[CWTClaim.subject]?.textValue else { throw .malformedToken("sub (2) is missing") }
        guard let issuedAt = claims[CWTClaim.issuedAt].flatMap(Self.numericDate) else {
            throw .malformedToken("iat (6) is missing or not a NumericDate")
        }
        let expiresAt = try optionalDate(claims[CWTClaim.expiration], name: "exp (4)")
        let ttl = claims[CWTClaim.timeToLive]
        guard ttl == nil || ttl?.uint64Value != nil else {
            throw .malformedToken("ttl (65534) is not an unsigned integer")
        }
        guard let listValue = claims[CWTClaim.statusList] else {
            throw .malformedToken("status_list (65533) is missing")
        }
        let list = try StatusList(cbor: listValue, maximumBytes: limits.maximumListBytes)
        let chain = try certificates(sign1.protected.map.mapEntries?.x5chain ?? [])
        return StatusListToken(
            format: .cwt, subject: subject, issuedAt: issuedAt, expiresAt: expiresAt, timeToLive: ttl?.uint64Value,
            statusList: list, certificateChain: chain, envelope: .cwt(sign1))
    }

    /// A NumericDate: an integer or a float of seconds since the epoch.
    static func numericDate(_ value: CBOR) -> Date? {
        switch value {
        case .unsigned(let seconds): return Date(timeIntervalSince1970: TimeInterval(seconds))
        case .float(let seconds) where seconds.isFinite && seconds >= 0: return Date(timeIntervalSince1970: seconds)
        case .tagged(1, let inner): return numericDate(inner)
        default: return nil
        }
    }

    private static func optionalDate(_ value: CBOR?, name: String) throws(StatusListError) -> Date? {
        guard let value else { return nil }
        guard let date = numericDate(value) else { throw .malformedToken("\(name) is not a NumericDate") }
        return date
    }

    /// The x5chain certificates, parsed.
    static func certificates(_ ders: [[UInt8]]) throws(StatusListError) -> [Certificate] {
        var chain: [Certificate] = []
        for der in ders.prefix(16) {
            do throws(CryptoError) {
                chain.append(try Certificate.cached(der: der))
            } catch {
                throw .malformedToken("an x5chain certificate cannot be read")
            }
        }
        return chain
    }

    /// Signs a Status List Token as a CWT: a tag-18 COSE_Sign1, protected header
    /// `{1: alg, 16: "application/statuslist+cwt", 33: x5chain}`.
    public static func signCWT(
        _ list: StatusList, subject: String, issuedAt: Date, expiresAt: Date?, timeToLive: UInt64?,
        key: PrivateKey, chain: [Certificate]
    ) throws(StatusListError) -> [UInt8] {
        guard let algorithm = key.curve.preferredSignatureAlgorithm else {
            throw .badSignature("no COSE algorithm for a \(key.curve.rawValue) key")
        }
        var claims: [CBORMapEntry] = [
            CBORMapEntry(CWTClaim.subject, .text(subject)),
            CBORMapEntry(CWTClaim.issuedAt, .unsigned(UInt64(issuedAt.timeIntervalSince1970))),
        ]
        if let expiresAt {
            claims.append(CBORMapEntry(CWTClaim.expiration, .unsigned(UInt64(expiresAt.timeIntervalSince1970))))
        }
        if let timeToLive { claims.append(CBORMapEntry(CWTClaim.timeToLive, .unsigned(timeToLive))) }
        claims.append(CBORMapEntry(CWTClaim.statusList, try list.cbor()))
        let payload = CBOR.map(claims).encoded()
        let protected = CBOR.map(
            [
                CBORMapEntry(COSEHeaderLabel.algorithm, .int(algorithm.rawValue)),
                CBORMapEntry(coseTypeLabel, .text(StatusListFormat.cwt.mediaType)),
            ] + [CBORMapEntry].x5chain(chain.map(\.der))
        ).encoded()
        let signature: [UInt8]
        do throws(CryptoError) {
            signature = try key.sign(
                COSESign1.sigStructure(protected: protected, payload: payload), algorithm: algorithm)
        } catch {
            throw .badSignature("signing failed: \(error)")
        }
        return CBOR.tagged(18, .array([.bytes(protected), .map([]), .bytes(payload), .bytes(signature)])).encoded()
    }
}
