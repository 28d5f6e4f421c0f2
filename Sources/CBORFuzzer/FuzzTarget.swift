import BLETransport
import CBOR
import ConfigFile
import ConsentPolicy
import Foundation
import ISO18013
import JOSE
import OpenID4VCI
import OpenID4VP
import TokenStatusList
import VICAL

/// The decoders that take bytes from outside, one fuzz target each: the input goes through
/// the decoder, and where a property holds for every input (a round trip, a size bound) it is
/// checked; a broken property crashes, as a decoder crash does.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// The CBOR decoder; when it decodes, decode(encode(x)) gives the same bytes.
    case cbor
    /// SessionEstablishment (the reader's first message).
    case sessionEstablishment = "session-establishment"
    /// SessionData (every later message).
    case sessionData = "session-data"
    /// DeviceRequest (decrypted), DeviceEngagement and DeviceResponse.
    case deviceRequest = "device-request"
    /// BLE chunk reassembly: the input cut into chunks (each led by a length byte), through
    /// MessageAssembler; no message above the limit, none longer than the bytes that came.
    case bleChunks = "ble-chunks"
    /// L2CAP framing: the input as a byte stream in pieces (each led by a length byte),
    /// through L2CAPMessageDecoder; each message re-framed decodes to itself.
    case l2capFraming = "l2cap-framing"
    /// JOSE: the input as a compact JWS, a compact JWE and a JWK (JSON).
    case jose
    /// A DCQL query (JSON).
    case dcql
    /// An authorization request: as a URL (openid4vp://...) and as request parameters (JSON
    /// object), with its client metadata.
    case authorizationRequest = "authorization-request"
    /// The configuration file reader (TOML, policy and verifiers schemas).
    case toml
    /// OpenID4VCI: a credential offer (as a URL and as JSON), the issuer's and authorization
    /// server's metadata, token, nonce, credential and error answers, an authorization redirect.
    case credentialOffer = "credential-offer"
    /// A VICAL (ISO 18013-5 Annex C.1.7): as the signed list a file holds, and as its payload.
    case vical
    /// A Status List Token, as a CWT and as a JWT, and the input as a zlib-compressed list
    /// (its first byte choosing `bits`); no list inflates beyond its limit.
    case statusList = "status-list"

    static let messageLimit = 4096

    func run(_ bytes: [UInt8]) {
        switch self {
        case .cbor:
            if let value = try? CBOR.decode(bytes) {
                let again = value.encoded()
                guard let back = try? CBOR.decode(again), back.encoded() == again else {
                    fatalError("re-encoded CBOR does not decode to the same value")
                }
            }
        case .sessionEstablishment:
            _ = try? SessionEstablishment(bytes: bytes)
        case .sessionData:
            _ = try? SessionData(bytes: bytes)
        case .deviceRequest:
            _ = try? DeviceRequest(bytes: bytes)
            _ = try? DeviceEngagement(bytes: bytes)
            _ = try? DeviceResponse(bytes: bytes)
        case .bleChunks:
            var assembler = MessageAssembler(maximumMessageSize: Self.messageLimit)
            for chunk in Self.pieces(bytes) {
                do {
                    if let message = try assembler.append(chunk) {
                        guard message.count <= Self.messageLimit, message.count <= bytes.count else {
                            fatalError("an assembled message exceeds its bounds")
                        }
                    }
                } catch {
                    assembler.reset()
                }
            }
        case .l2capFraming:
            var decoder = L2CAPMessageDecoder(maximumMessageSize: Self.messageLimit)
            for piece in Self.pieces(bytes) {
                guard let messages = try? decoder.append(piece) else {
                    decoder = L2CAPMessageDecoder(maximumMessageSize: Self.messageLimit)
                    continue
                }
                for message in messages {
                    guard message.count <= Self.messageLimit,
                        let framed = try? L2CAPFraming.frame(message),
                        var fresh = Optional(L2CAPMessageDecoder(maximumMessageSize: Self.messageLimit)),
                        (try? fresh.append(framed)) == [message]
                    else { fatalError("an L2CAP message does not survive re-framing") }
                }
            }
        case .jose:
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? JWS(compact: text)
            _ = try? JWE(compact: text)
            _ = try? JWK(jsonText: text)
        case .dcql:
            if let json = try? JSONValue(parsing: bytes) { _ = try? DCQLQuery(json: json) }
        case .authorizationRequest:
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? AuthorizationRequestURL(text)
            if let json = try? JSONValue(parsing: bytes), case .object(let parameters) = json {
                _ = try? AuthorizationRequest(parameters: parameters)
                _ = try? ClientMetadata(json: json)
            }
        case .toml:
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? ConfigFileParser.parse(text, tableName: "rule")
            _ = try? PreRegisteredVerifierFile.parse(text, baseDirectory: URL(fileURLWithPath: "/nonexistent"))
        case .credentialOffer:
            Self.credentialOffer(bytes)
        case .vical:
            Self.vical(bytes)
        case .statusList:
            Self.statusList(bytes)
        }
    }

    static let listLimit = 1 << 16

    private static func credentialOffer(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? CredentialOfferURL(text)
        _ = try? CredentialOffer(jsonText: text)
        _ = try? CredentialIssuerMetadata(body: bytes, issuer: "https://issuer.example")
        _ = try? AuthorizationServerMetadata(body: bytes, issuer: "https://issuer.example")
        _ = try? TokenResponse(body: bytes)
        _ = try? NonceResponse(body: bytes)
        _ = try? CredentialResponse(body: bytes)
        _ = try? CodeAuthorization.pushedRequestURI(body: bytes)
        _ = OAuthErrorResponse(body: bytes)
        let authorization = CodeAuthorization(
            clientID: "c", redirectURI: "http://127.0.0.1:1/cb", issuerState: nil, configurationIDs: ["x"],
            state: "s")
        _ = try? authorization.code(fromRedirectQuery: text, authorizationServer: "https://issuer.example")
    }

    private static func vical(_ bytes: [UInt8]) {
        if let signed = try? SignedVICAL(bytes: bytes) { _ = VerifiedVICAL.entries(of: signed.vical) }
        _ = try? VICAL(payload: bytes)
    }

    private static func statusList(_ bytes: [UInt8]) {
        let limits = StatusListLimits(maximumTokenBytes: 1 << 16, maximumListBytes: listLimit)
        _ = try? StatusListToken(bytes: bytes, format: .cwt, limits: limits)
        _ = try? StatusListToken(bytes: bytes, format: .jwt, limits: limits)
        if let first = bytes.first,
            let list = try? StatusList(
                bits: 1 << Int(first % 4), compressed: Array(bytes.dropFirst()), maximumBytes: listLimit)
        {
            guard list.bytes.count <= listLimit else { fatalError("a status list inflated beyond its limit") }
        }
    }

    /// The input cut into pieces: each piece is led by a byte giving its length (1 to 64).
    static func pieces(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index] % 64) + 1
            let start = index + 1
            let end = min(bytes.count, start + length)
            pieces.append(bytes[start..<end])
            index = end
        }
        return pieces
    }
}
