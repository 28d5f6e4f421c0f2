import CBOR
import Consent
import Foundation
import ISO18013
import JOSE
import MdocCrypto
import MdocIssuer
import OAuthWeb
import Presentation
import Testing
@testable import OpenID4VP

/// A test verifier: a CA, a leaf certificate with DNS SANs, and helpers that make the
/// requests a verifier sends.
struct TestVerifier {
    static let host = "verifier.example.com"
    static let clientID = "x509_san_dns:\(host)"
    static let responseURI = "https://\(host)/response"
    static let requestObjectType = "oauth-authz-req+jwt"

    let caKey: PrivateKey
    let ca: Certificate
    let leafKey: PrivateKey
    let leaf: Certificate
    /// The key responses are encrypted to (client_metadata.jwks).
    let encryptionKey: PrivateKey

    init(dnsNames: [String] = [TestVerifier.host], notAfter: Date = Date(timeIntervalSinceNow: 86_400)) throws {
        caKey = try PrivateKey.generate(.p256)
        var root = CertificateBuilder(
            subject: DistinguishedName(country: "US", organization: "Test", commonName: "Test Verifier CA"),
            subjectPublicKey: caKey.publicKey, notBefore: Date(timeIntervalSinceNow: -3600),
            notAfter: Date(timeIntervalSinceNow: 365 * 86_400))
        root.basicConstraints = .certificateAuthority(pathLength: 0)
        root.keyUsage = [.keyCertSign, .cRLSign]
        ca = try root.selfSigned(with: caKey)
        leafKey = try PrivateKey.generate(.p256)
        var builder = CertificateBuilder(
            subject: DistinguishedName(country: "US", organization: "Test", commonName: "Test Verifier"),
            subjectPublicKey: leafKey.publicKey, notBefore: Date(timeIntervalSinceNow: -3600), notAfter: notAfter)
        builder.basicConstraints = .endEntity
        builder.keyUsage = .digitalSignature
        builder.subjectAlternativeNames = dnsNames.map { .dns($0) }
        leaf = try builder.issued(by: ca, issuerKey: caKey)
        encryptionKey = try PrivateKey.generate(.p256)
    }

    var trust: VerifierTrustConfiguration { VerifierTrustConfiguration(trustAnchors: [ca]) }
    var verifier: RequestObjectVerifier { RequestObjectVerifier(configuration: trust) }

    var encryptionJWK: JWK {
        get throws { try JWK(publicKey: encryptionKey.publicKey, keyID: "enc-1", use: "enc", algorithm: "ECDH-ES") }
    }

    /// Request parameters as a Request Object carries them.
    static func payload(
        clientID: String = clientID, responseURI: String = responseURI, nonce: String = "n-0S6_WzA2Mj",
        mode: String = "direct_post", dcql: JSONValue? = TestVerifier.mdlQuery, metadata: JSONValue? = nil,
        state: String? = "state-1", extra: [String: JSONValue] = [:]
    ) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "client_id": .string(clientID), "response_uri": .string(responseURI), "response_type": "vp_token",
            "response_mode": .string(mode), "nonce": .string(nonce),
        ]
        if let dcql { members["dcql_query"] = dcql }
        if let state { members["state"] = .string(state) }
        if let metadata { members["client_metadata"] = metadata }
        for (key, value) in extra { members[key] = value }
        return members
    }

    /// `client_metadata` with the encryption key.
    func metadata(enc: [String]? = nil, name: String? = "Test Verifier") throws -> JSONValue {
        var members: [String: JSONValue] = [
            "jwks": ["keys": [try encryptionJWK.json()]],
            "vp_formats_supported": ["mso_mdoc": ["issuerauth_alg_values": [-7], "deviceauth_alg_values": [-7]]],
        ]
        if let name { members["client_name"] = .string(name) }
        if let enc { members["encrypted_response_enc_values_supported"] = .array(enc.map { .string($0) }) }
        return .object(members)
    }

    /// A Request Object signed by the leaf, with the chain in x5c.
    func sign(
        _ payload: [String: JSONValue], typ: String? = TestVerifier.requestObjectType, key: PrivateKey? = nil,
        chain: [Certificate]? = nil, header: [String: JSONValue] = [:]
    ) throws -> String {
        var members = header
        members["x5c"] = JWS.x5cHeader(chain ?? [leaf, ca])
        if let typ { members["typ"] = .string(typ) }
        return try JWS.sign(payload: JSONValue.object(payload).serialized, header: members, key: key ?? leafKey)
    }

    /// `{"credentials": [{"id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": mDL}, "claims": [...]}]}`
    static let mdlQuery: JSONValue = [
        "credentials": [
            [
                "id": "mdl", "format": "mso_mdoc", "meta": ["doctype_value": "org.iso.18013.5.1.mDL"],
                "claims": [
                    ["path": ["org.iso.18013.5.1", "family_name"], "intent_to_retain": true],
                    ["path": ["org.iso.18013.5.1", "given_name"]],
                ],
            ]
        ]
    ]
}

/// Credentials issued by the test issuer for these tests.
struct TestWallet {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let ns = "org.iso.18013.5.1"
    static let loyalty = "org.example.loyalty.1"

    let pki: TestPKI
    let now = Date()

    init() throws { pki = try TestPKI.generate() }

    func issue(
        docType: String = mDL, nameSpace: String = ns, elements: [(String, CBOR)]? = nil, curve: Curve = .p256
    ) throws -> PresentableCredential {
        let key = try PrivateKey.generate(curve)
        let items =
            elements ?? [
                ("family_name", "Mustermann"), ("given_name", "Erika"), ("birth_date", .tagged(1004, "1971-09-01")),
                ("age_over_18", true), ("age_over_21", true), ("document_number", "T1234567"),
            ]
        let issuerSigned = try MdocIssuer.issue(
            docType: docType, nameSpaces: [(nameSpace, items)], deviceKey: key.publicKey,
            documentSignerKey: pki.documentSignerKey, documentSignerChain: [pki.documentSigner],
            validFrom: now.addingTimeInterval(-60), validUntil: now.addingTimeInterval(86400))
        return PresentableCredential(
            id: UUID().uuidString, docType: docType, issuerSigned: issuerSigned, deviceKey: key)
    }
}

/// did:key of a P-256 (multicodec 0x1200, compressed) or Ed25519 (0xed) key.
func didKey(_ key: PublicKey) -> String {
    let bytes: [UInt8]
    switch key.curve {
    case .ed25519:
        bytes = [0xED, 0x01] + key.x
    default:
        let parity: UInt8 = (key.y?.last ?? 0) & 1 == 0 ? 0x02 : 0x03
        bytes = [0x80, 0x24, parity] + key.x
    }
    return "did:key:z" + base58(bytes)
}

func base58(_ bytes: [UInt8]) -> String {
    let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
    var digits: [Int] = []  // little-endian base 58
    for byte in bytes {
        var carry = Int(byte)
        for i in digits.indices {
            carry += digits[i] << 8
            digits[i] = carry % 58
            carry /= 58
        }
        while carry > 0 {
            digits.append(carry % 58)
            carry /= 58
        }
    }
    let zeros = bytes.prefix { $0 == 0 }.count
    return String(repeating: "1", count: zeros) + String(digits.reversed().map { alphabet[$0] })
}

/// Percent-encodes a query value.
func q(_ value: String) -> String { FormEncoding.escape(value) }

extension AuthorizationError {
    var codeName: String { code.rawValue }
}

/// The authorization error a throwing call ends with (nil if it returns; a failed test if it
/// throws something else).
func authorizationError(_ body: () throws -> Void) -> AuthorizationError? {
    do {
        try body()
        return nil
    } catch let error as AuthorizationError {
        return error
    } catch {
        Issue.record("not an AuthorizationError: \(error)")
        return nil
    }
}
