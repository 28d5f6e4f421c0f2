import FoundationEssentials
import JOSE
import MdocCrypto
import PrintableText

extension StatusListToken {
    static func readJWT(_ bytes: [UInt8], limits: StatusListLimits) throws(StatusListError) -> StatusListToken {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformedToken("the JWT is not UTF-8") }
        let jws: JWS
        let claims: [String: JSONValue]
        do throws(JOSEError) {
            jws = try JWS(compact: text.trimmingWhitespace())
            claims = try jws.payloadJSON()
        } catch {
            throw .malformedToken("not a compact JWS with a JSON payload: \(error)")
        }
        guard jws.type == StatusListFormat.jwtType else { throw .malformedToken("the JWT's typ is not statuslist+jwt") }
        guard let subject = claims["sub"]?.stringValue else { throw .malformedToken("sub is missing") }
        guard let issuedAt = claims["iat"].flatMap(Self.numericDate) else {
            throw .malformedToken("iat is missing or not a NumericDate")
        }
        var expiresAt: Date?
        if let exp = claims["exp"] {
            guard let date = numericDate(exp) else { throw .malformedToken("exp is not a NumericDate") }
            expiresAt = date
        }
        var timeToLive: UInt64?
        if let ttl = claims["ttl"] {
            guard let seconds = ttl.numberValue, seconds >= 0, seconds.rounded() == seconds, seconds < 1e15 else {
                throw .malformedToken("ttl is not a non-negative integer")
            }
            timeToLive = UInt64(seconds)
        }
        guard let listValue = claims["status_list"] else { throw .malformedToken("status_list is missing") }
        let list = try StatusList(json: listValue, maximumBytes: limits.maximumListBytes)
        let chain: [Certificate]
        do throws(JOSEError) {
            chain = try jws.certificateChain()
        } catch {
            throw .malformedToken("the x5c header cannot be read")
        }
        return StatusListToken(
            format: .jwt, subject: subject, issuedAt: issuedAt, expiresAt: expiresAt, timeToLive: timeToLive,
            statusList: list, certificateChain: chain, envelope: .jwt(jws))
    }

    static func numericDate(_ value: JSONValue) -> Date? {
        guard let seconds = value.numberValue, seconds.isFinite, seconds >= 0 else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Signs a Status List Token as a JWT: header `{alg, typ: "statuslist+jwt", x5c}`.
    public static func signJWT(
        _ list: StatusList, subject: String, issuedAt: Date, expiresAt: Date?, timeToLive: UInt64?,
        key: PrivateKey, chain: [Certificate]
    ) throws(StatusListError) -> String {
        var claims: [String: JSONValue] = [
            "sub": .string(subject), "iat": .number(issuedAt.timeIntervalSince1970.rounded(.down)),
            "status_list": try list.json(),
        ]
        if let expiresAt { claims["exp"] = .number(expiresAt.timeIntervalSince1970.rounded(.down)) }
        if let timeToLive { claims["ttl"] = .number(Double(timeToLive)) }
        var header: [String: JSONValue] = ["typ": .string(StatusListFormat.jwtType)]
        if !chain.isEmpty { header["x5c"] = JWS.x5cHeader(chain) }
        do throws(JOSEError) {
            return try JWS.sign(payload: JSONValue.object(claims).serialized, header: header, key: key)
        } catch {
            throw .badSignature("signing failed: \(error)")
        }
    }
}
