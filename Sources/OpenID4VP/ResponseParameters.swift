import Base64
import CBOR
import Consent
import FoundationEssentials
import ISO18013
import JOSE
import MdocCrypto
import OAuthWeb
import Presentation
import SDJWT
import SDJWTPresentable

/// The verifier key and content encryption a `direct_post.jwt` response is encrypted with.
public struct ResponseEncryption: Sendable, Equatable {
    /// The chosen key of `client_metadata.jwks` (its `kid` goes into the JWE header).
    public let recipient: JWK
    public let contentEncryption: JWEContentEncryption

    /// The RFC 7638 thumbprint of ``recipient``, for the OpenID4VP 1.0 handover.
    public var thumbprint: [UInt8] { recipient.thumbprint }

    /// Chooses the first usable key (`use` enc or absent, `alg` ECDH-ES or absent, a curve
    /// that can do key agreement) and the first supported `enc` of the verifier's list.
    ///
    /// - Throws: `invalid_request` when there is no such key or `enc`.
    static func choose(for request: AuthorizationRequest) throws(AuthorizationError) -> ResponseEncryption {
        let metadata = request.clientMetadata ?? ClientMetadata()
        guard
            let key = metadata.encryptionKeys.first(where: {
                ($0.use == nil || $0.use == "enc") && ($0.algorithm == nil || $0.algorithm == JWE.keyAgreement)
                    && $0.curve.supportsKeyAgreement
            })
        else { throw .invalidRequest("client_metadata.jwks has no ECDH-ES key to encrypt the response to") }
        let encryption: JWEContentEncryption
        if request.isPreFinal {
            if let alg = metadata.legacyEncryptedResponseAlg, alg != JWE.keyAgreement {
                throw .invalidRequest("authorization_encrypted_response_alg is not ECDH-ES")
            }
            // ISO/IEC TS 18013-7 Annex B uses A256GCM.
            guard let enc = JWEContentEncryption(rawValue: metadata.legacyEncryptedResponseEnc ?? "A256GCM") else {
                throw .invalidRequest("authorization_encrypted_response_enc is not supported")
            }
            encryption = enc
        } else {
            guard let enc = metadata.encryptedResponseEncValues.lazy.compactMap(JWEContentEncryption.init).first
            else { throw .invalidRequest("no encrypted_response_enc_values_supported value is supported") }
            encryption = enc
        }
        return ResponseEncryption(recipient: key, contentEncryption: encryption)
    }
}

/// Everything fixed before a response can be made for a verified request: where it goes,
/// whether and how it is encrypted, and the SessionTranscript the device signatures cover.
///
/// OpenID4VP 1.0: `SessionTranscript = [null, null, OpenID4VPHandover]` over client_id,
/// nonce, the encryption key's thumbprint (null when not encrypted) and response_uri, all
/// from the verified (signed) request. Pre-1.0 (`presentation_definition`): the ISO/IEC TS
/// 18013-7 handover with a fresh mdocGeneratedNonce, sent to the verifier as the JWE `apu`.
public struct ResponseParameters: Sendable {
    public let request: AuthorizationRequest
    /// Where the HTTP layer POSTs the form.
    public var responseURI: String { request.responseURI }
    /// Set for `direct_post.jwt`.
    public let encryption: ResponseEncryption?
    /// Pre-1.0 only.
    public let mdocGeneratedNonce: String?
    /// The transcript to build the DeviceResponses with.
    public let sessionTranscript: SessionTranscript

    /// Fixes the response parameters of `request`.
    ///
    /// - Throws: `invalid_request` for `direct_post.jwt` without a usable key or `enc`.
    public init(request: AuthorizationRequest) throws(AuthorizationError) {
        try self.init(
            request: request,
            mdocGeneratedNonce: request.isPreFinal ? Base64URL.encode(SecureRandom.bytes(16)) : nil)
    }

    /// With a given mdocGeneratedNonce (tests; ignored for 1.0 requests).
    init(request: AuthorizationRequest, mdocGeneratedNonce: String?) throws(AuthorizationError) {
        self.request = request
        encryption = request.responseMode == .directPostJWT ? try ResponseEncryption.choose(for: request) : nil
        let handover: CBOR
        if request.isPreFinal {
            let generated = mdocGeneratedNonce ?? Base64URL.encode(SecureRandom.bytes(16))
            self.mdocGeneratedNonce = generated
            handover = OnlineHandover.iso18013Part7(
                clientID: request.clientID.raw, responseURI: request.responseURI, nonce: request.nonce,
                mdocGeneratedNonce: generated)
        } else {
            self.mdocGeneratedNonce = nil
            handover = OnlineHandover.openID4VP(
                clientID: request.clientID.raw, nonce: request.nonce, jwkThumbprint: encryption?.thumbprint,
                responseURI: request.responseURI)
        }
        sessionTranscript = SessionTranscript(handover: handover)
    }

    /// `vp_token` of OpenID4VP 1.0: `{"<credential query id>": ["<base64url DeviceResponse>", ...]}`.
    public static func vpToken(_ presentations: [String: [[UInt8]]]) -> JSONValue {
        vpToken(presentations.mapValues { $0.map { Base64URL.encode($0) } })
    }

    /// `vp_token` of OpenID4VP 1.0 from presentations already in their string form (a base64url
    /// DeviceResponse, an SD-JWT with its Key Binding JWT).
    public static func vpToken(_ presentations: [String: [String]]) -> JSONValue {
        .object(presentations.mapValues { .array($0.map { .string($0) }) })
    }

    /// The success response: `vp_token` (and `state`) as form fields for `direct_post`, or
    /// the same members as a JWE in the `response` field for `direct_post.jwt`.
    ///
    /// - Parameter presentations: credential query id → encoded DeviceResponses.
    public func successResponse(presentations: [String: [[UInt8]]]) throws(AuthorizationError) -> FormBody {
        try body(["vp_token": Self.vpToken(presentations)])
    }

    /// The success response for presentations in their string form.
    public func successResponse(presentations: [String: [String]]) throws(AuthorizationError) -> FormBody {
        try body(["vp_token": Self.vpToken(presentations)])
    }

    /// The pre-1.0 success response: `vp_token` is one base64url DeviceResponse,
    /// `presentation_submission` maps each input descriptor to it (`path` "$").
    public func successResponse(deviceResponse: [UInt8], descriptorIDs: [String]) throws(AuthorizationError)
        -> FormBody
    {
        guard case .presentationDefinition(let definition) = request.query else {
            throw AuthorizationError(.serverError, "a presentation submission answers only presentation_definition")
        }
        let submission: JSONValue = [
            "id": .string(Base64URL.encode(SecureRandom.bytes(16))), "definition_id": .string(definition.id),
            "descriptor_map": .array(
                descriptorIDs.map { ["id": .string($0), "format": .string(DCQLQuery.mdocFormat), "path": "$"] }),
        ]
        return try body([
            "vp_token": .string(Base64URL.encode(deviceResponse)), "presentation_submission": submission,
        ])
    }

    /// The error response: `error`, `error_description`, `state`, never encrypted (OpenID4VP
    /// 1.0 section 8.3.1 allows this under direct_post.jwt).
    public func errorResponse(_ error: AuthorizationError) -> FormBody {
        Self.errorResponse(error, state: request.state)
    }

    /// The error response for a request whose response parameters could not be fixed (no
    /// usable encryption key, ...): `error`, `error_description` and the request's `state`.
    public static func errorResponse(_ error: AuthorizationError, state: String?) -> FormBody {
        var fields = [FormBody.Field("error", error.code.rawValue), .init("error_description", error.description)]
        if let state { fields.append(.init("state", state)) }
        return FormBody(fields)
    }

    private func body(_ members: [String: JSONValue]) throws(AuthorizationError) -> FormBody {
        var members = members
        guard let encryption else {
            var fields: [FormBody.Field] = []
            for name in ["vp_token", "presentation_submission"] {
                if let value = members[name] { fields.append(.init(name, value.stringValue ?? value.serializedString)) }
            }
            if let state = request.state { fields.append(.init("state", state)) }
            return FormBody(fields)
        }
        if let state = request.state { members["state"] = .string(state) }
        let jwe: String
        do {
            jwe = try JWE.encrypt(
                JSONValue.object(members).serialized, to: encryption.recipient,
                encryption: encryption.contentEncryption,
                agreementPartyUInfo: mdocGeneratedNonce.map { Array($0.utf8) },
                agreementPartyVInfo: request.isPreFinal ? Array(request.nonce.utf8) : nil)
        } catch {
            throw AuthorizationError(.serverError, "the response could not be encrypted")
        }
        return FormBody([.init("response", jwe)])
    }

    // MARK: - From the user's decision

    /// Builds the DeviceResponses for what the user approved and the response that carries
    /// them: one DeviceResponse per credential query (1.0), or one for all documents (pre-1.0).
    ///
    /// - Returns: the form to POST to ``responseURI`` and what was shared, for the history.
    /// - Throws: `access_denied` when the user declined or what is approved does not satisfy
    ///   the query (send ``errorResponse(_:)`` then); `server_error` when device
    ///   authentication or encryption failed.
    public func successResponse(for match: DCQLMatch, decision: ConsentDecision) throws(AuthorizationError) -> (
        body: FormBody, records: [PresentationRecord]
    ) {
        let approved = try match.approvedSelections(decision)
        let requester = match.consentRequest.requester
        func document(_ selection: DCQLMatch.Selection, _ credential: PresentableCredential, _ elements: [ElementID])
            -> RequestedDocument
        {
            var nameSpaces: [ItemsRequest.NameSpace] = []
            for element in elements {
                let item = ItemsRequest.Element(
                    element.identifier,
                    intentToRetain: selection.elements.first { $0.id == element }?.intentToRetain ?? false)
                if let index = nameSpaces.firstIndex(where: { $0.name == element.nameSpace }) {
                    nameSpaces[index].elements.append(item)
                } else {
                    nameSpaces.append(ItemsRequest.NameSpace(element.nameSpace, [item]))
                }
            }
            return RequestedDocument(
                itemsRequest: ItemsRequest(docType: credential.docType, nameSpaces: nameSpaces),
                credential: credential, requester: requester)
        }
        func generate(_ documents: [RequestedDocument], _ approvals: [String: Set<ElementID>])
            throws(AuthorizationError)
            -> (DeviceResponse, [PresentationRecord])
        {
            let (response, records) = DeviceResponseGenerator.respond(
                to: documents, decision: .approve(approvals), transcript: sessionTranscript)
            guard response.documents.count == documents.count else {
                var error = AuthorizationError(.serverError, "device authentication failed")
                error.localDetail =
                    records.lazy.compactMap {
                        if case .notReturned(let reason) = $0.outcome { return reason }
                        return nil
                    }.first
                throw error
            }
            return (response, records)
        }

        if request.isPreFinal {
            var approvals: [String: Set<ElementID>] = [:]
            var documents: [RequestedDocument] = []
            for (selection, elements) in approved {
                guard case .mdoc(let credential) = selection.credential else {
                    throw AuthorizationError(.serverError, "a presentation_definition response carries mdocs only")
                }
                approvals[credential.docType, default: []].formUnion(elements)
                documents.append(document(selection, credential, elements))
            }
            let (response, records) = try generate(documents, approvals)
            let body = try successResponse(
                deviceResponse: response.encoded, descriptorIDs: approved.map(\.selection.queryID))
            return (body, records)
        }
        var presentations: [String: [String]] = [:]
        var records: [PresentationRecord] = []
        for (selection, elements) in approved {
            switch selection.credential {
            case .mdoc(let credential):
                let (response, recorded) = try generate(
                    [document(selection, credential, elements)], [credential.docType: Set(elements)])
                presentations[selection.queryID, default: []].append(Base64URL.encode(response.encoded))
                records += recorded
            case .sdJWT(let credential):
                let paths = elements.compactMap { selection.claimPaths[$0] }
                presentations[selection.queryID, default: []].append(try sdJWTPresentation(credential, paths: paths))
                records.append(
                    PresentationRecord(
                        requester: requester, docType: credential.vct, elementsSent: elements, outcome: .sent,
                        credentialID: credential.id))
            }
        }
        return (try successResponse(presentations: presentations), records)
    }

    /// The SD-JWT VC with the Disclosures `paths` need and a Key Binding JWT for this request
    /// (`aud` the full client_id, `nonce` the request's), signed in the key's secure area.
    func sdJWTPresentation(_ credential: PresentableSDJWT, paths: [ClaimPath], at time: Date = Date())
        throws(AuthorizationError) -> String
    {
        let vc = credential.credential
        let disclosed = vc.sdJWT.presentation(disclosing: vc.claims.disclosuresNeeded(for: paths))
        guard let algorithm = JWSAlgorithm.forSigning(with: credential.key.curve) else {
            var error = AuthorizationError(.serverError, "key binding failed")
            error.localDetail =
                "credential \(credential.id): no JWS algorithm for a \(credential.key.curve.rawValue) key"
            throw error
        }
        do {
            return try KeyBindingJWT.append(
                to: disclosed,
                binding: .init(audience: request.clientID.raw, nonce: request.nonce, issuedAt: time),
                hashAlgorithm: vc.hashAlgorithm, algorithm: algorithm
            ) { try credential.key.signature(over: $0, algorithm: algorithm.signatureAlgorithm) }
        } catch {
            var failure = AuthorizationError(.serverError, "key binding failed")
            failure.localDetail = "credential \(credential.id) (\(credential.key.location)): \(error)"
            throw failure
        }
    }
}
