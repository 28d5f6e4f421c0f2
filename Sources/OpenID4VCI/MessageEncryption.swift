import FoundationEssentials
import JOSE
import MdocCrypto
import PrintableText

/// `credential_response_encryption` of the issuer metadata (OpenID4VCI 1.0 section 12.2.4).
public struct ResponseEncryptionMetadata: Sendable, Equatable {
    public var algorithms: [String]
    public var encryptions: [String]
    public var required: Bool

    init(json: JSONValue) throws(IssuanceError) {
        guard json.objectValue != nil else { throw .invalidMetadata("credential_response_encryption is not an object") }
        algorithms = Metadata.strings(json, "alg_values_supported")
        encryptions = Metadata.strings(json, "enc_values_supported")
        required = json["encryption_required"]?.boolValue ?? false
        guard !encryptions.isEmpty else {
            throw .invalidMetadata("credential_response_encryption has no enc_values_supported")
        }
    }
}

/// `credential_request_encryption` of the issuer metadata: the issuer's keys and `enc` values.
public struct RequestEncryptionMetadata: Sendable, Equatable {
    public var keys: [JWK]
    public var encryptions: [String]
    public var required: Bool

    init(json: JSONValue) throws(IssuanceError) {
        guard let list = json["jwks"]?["keys"]?.arrayValue else {
            throw .invalidMetadata("credential_request_encryption has no jwks with keys")
        }
        // Keys of types this holder cannot use are skipped; one usable key is enough.
        keys = list.compactMap { try? JWK(json: $0) }
        encryptions = Metadata.strings(json, "enc_values_supported")
        required = json["encryption_required"]?.boolValue ?? false
    }
}

/// Encrypted credential requests and responses (OpenID4VCI 1.0 section 10): the request as a
/// JWE to the issuer's key (`application/jwt`), and an ephemeral key of ours the issuer
/// encrypts its answer to (ECDH-ES, the `enc` both support). The key lives in memory for one
/// issuance.
public struct MessageEncryption: Sendable {
    /// The media type of an encrypted request or response.
    public static let mediaType = "application/jwt"
    static let ours: [JWEContentEncryption] = [.a128GCM, .a256GCM, .a192GCM]

    private let responseKey: PrivateKey
    /// The `enc` the issuer is asked to use.
    public let responseEncryption: JWEContentEncryption
    /// The issuer's key and `enc` for the request, when it takes encrypted requests.
    public let requestKey: JWK?
    public let requestEncryption: JWEContentEncryption?
    /// The response key of an earlier request of the same issuance (the credential request of
    /// a resumed deferred issuance): some issuers encrypt the deferred answer to it.
    private var earlierResponseKey: EarlierResponseKey?

    /// Z = ECDH(key, peer) with a kept key, in whatever secure area keeps it.
    public typealias KeyAgreement = @Sendable (PublicKey) throws(JOSEError) -> SecretBytes
    struct EarlierResponseKey: Sendable {
        var curve: Curve
        var agree: KeyAgreement
    }

    /// Encryption as the issuer's metadata allows, or nil when the issuer offers no response
    /// encryption (then nothing is encrypted).
    ///
    /// - Throws: ``IssuanceError/unsupported(_:)`` when the issuer requires encryption this
    ///   holder cannot do (no ECDH-ES, no AES-GCM `enc`, no usable key).
    public init?(metadata: CredentialIssuerMetadata) throws(IssuanceError) {
        guard let response = metadata.responseEncryption else {
            if metadata.requestEncryption?.required == true {
                throw .unsupported("the issuer requires encrypted requests but offers no encrypted responses")
            }
            return nil
        }
        guard response.algorithms.isEmpty || response.algorithms.contains(JWE.keyAgreement),
            let enc = Self.ours.first(where: { response.encryptions.contains($0.rawValue) })
        else {
            if response.required {
                throw .unsupported(
                    "the issuer requires encrypted responses with algorithms this holder does not implement (it has ECDH-ES with AES-GCM)"
                )
            }
            return nil
        }
        do {
            responseKey = try PrivateKey.generate(.p256)
        } catch {
            throw .unsupported("no response encryption key could be made: \(error)")
        }
        responseEncryption = enc
        // The request is encrypted whenever the issuer takes encrypted requests: a response
        // encryption key sent in the clear could be substituted (section 9.1).
        if let request = metadata.requestEncryption,
            let key = request.keys.first(where: {
                $0.keyType == .ec && $0.curve.supportsKeyAgreement
                    && ($0.algorithm ?? JWE.keyAgreement) == JWE.keyAgreement
                    && $0.use != "sig"
            }),
            let requestEnc = Self.ours.first(where: {
                request.encryptions.isEmpty || request.encryptions.contains($0.rawValue)
            })
        {
            requestKey = key
            requestEncryption = requestEnc
        } else if metadata.requestEncryption?.required == true {
            throw .unsupported("the issuer requires encrypted requests with a key or enc this holder cannot use")
        } else {
            requestKey = nil
            requestEncryption = nil
        }
    }

    /// The private response key, for a deferred issuance to keep (wrapped, as other keys of
    /// the store) until its answer comes: never to be shown or logged.
    public var responseKeyToKeep: PrivateKey { responseKey }

    /// This encryption, also taking answers encrypted to the kept response key of an earlier
    /// request (on `curve`, used through `agree`).
    public func acceptingAnswers(toEarlierKeyOn curve: Curve, agree: @escaping KeyAgreement) -> MessageEncryption {
        var copy = self
        copy.earlierResponseKey = EarlierResponseKey(curve: curve, agree: agree)
        return copy
    }

    /// The `credential_response_encryption` request member: our public key (with `alg`
    /// ECDH-ES, as section 10 requires) and `enc`.
    public var requestMember: JSONValue {
        let jwk = (try? JWK(publicKey: responseKey.publicKey, use: "enc", algorithm: JWE.keyAgreement).json()) ?? .null
        return ["jwk": jwk, "enc": .string(responseEncryption.rawValue)]
    }

    /// The request body and its media type: a JWE of the JSON to the issuer's key, or the JSON.
    public func encode(_ json: [UInt8]) throws(IssuanceError) -> (body: [UInt8], contentType: String) {
        guard let requestKey, let requestEncryption else { return (json, "application/json") }
        do {
            return (Array(try JWE.encrypt(json, to: requestKey, encryption: requestEncryption).utf8), Self.mediaType)
        } catch {
            throw .unsupported("the request could not be encrypted: \(error)")
        }
    }

    /// The plaintext of an encrypted answer (`application/jwt`); an unencrypted answer is
    /// refused (section 10: encryption was asked for).
    public func decode(_ body: [UInt8], contentType: String?, endpoint: String) throws(IssuanceError) -> [UInt8] {
        guard contentType == Self.mediaType else {
            throw .invalidResponse(endpoint: endpoint, "the answer is not encrypted although encryption was asked for")
        }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw .invalidResponse(endpoint: endpoint, "the encrypted answer is not text")
        }
        do {
            let jwe = try JWE(compact: text.trimmingWhitespace())
            guard jwe.contentEncryption == responseEncryption else {
                throw IssuanceError.invalidResponse(
                    endpoint: endpoint, "the answer is encrypted with another enc than asked")
            }
            return try decrypt(jwe)
        } catch let error as IssuanceError {
            throw error
        } catch {
            throw .invalidResponse(endpoint: endpoint, "the encrypted answer cannot be decrypted: \(error)")
        }
    }

    /// With the response key of this request, else with the earlier one.
    private func decrypt(_ jwe: JWE) throws(JOSEError) -> [UInt8] {
        do {
            return try jwe.decrypt(with: responseKey)
        } catch {
            guard let earlier = earlierResponseKey else { throw error }
            return try jwe.decrypt(curve: earlier.curve, agree: earlier.agree)
        }
    }
}
