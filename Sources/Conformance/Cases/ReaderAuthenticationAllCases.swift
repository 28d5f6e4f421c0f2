import CBOR
import COSE
import ISO18013
import MdocCrypto
import MdocIssuer
import Presentation

/// `readerAuthAll` (18013-5 second edition, DeviceRequest "1.1"): one reader signature over
/// every DocRequest and the DeviceRequestInfo. A trusted one gets the data a trusted
/// readerAuth would (where the holder advertises ReaderAuthAll support); one the holder
/// cannot trust gets nothing, like the mDL_SM_mdocRAuth_UF cases.
enum ReaderAuthenticationAllCases {
    static let all = [trusted, untrustedRoot, replayed, attachedPayload, unprotectedAlgorithm]

    static let reference =
        "ISO/IEC 18013-5 second edition 9.1.4 (ReaderAuthenticationAll: detached COSE_Sign1 over "
        + "[\"ReaderAuthenticationAll\", SessionTranscript, [+ ItemsRequestBytes], DeviceRequestInfoBytes / null])"

    /// A "1.1" DeviceRequest for the run's request, without readerAuth, with a
    /// DeviceRequestInfo and the `readerAuthAll` that `signAll` makes.
    static func request(_ context: CaseContext, signAll: @escaping RawDeviceRequest.SignAll) -> RawDeviceRequest {
        RawDeviceRequest(
            version: "1.1", items: [context.settings.request.cbor], deviceRequestInfo: RawDeviceRequest.oneUseCase,
            signAll: signAll)
    }

    /// Signs as `identity` over `transcript` in `form`.
    static func signer(_ identity: ReaderIdentity, form: ReaderAuthenticationAll.Form = .standard)
        -> RawDeviceRequest.SignAll
    {
        { transcript, items, info in
            try ReaderAuthenticationAll.sign(
                sessionTranscript: transcript, itemsRequests: items, deviceRequestInfo: info, key: identity.key,
                chain: identity.chain, form: form)
        }
    }

    /// The run's reader identity; skips without `--reader-key`.
    static func identity(_ context: CaseContext) throws(CaseStop) -> ReaderIdentity {
        guard let identity = context.settings.identity else {
            throw .skip("needs a reader certificate the holder trusts (--reader-key, --reader-cert)")
        }
        return identity
    }

    static let trusted = ConformanceCase(
        id: "mDL_SM_mdocRAuthAll_01",
        title: "a \"1.1\" DeviceRequest signed only with readerAuthAll by the trusted reader",
        expectation: "DeviceResponse status 0 releasing at least one element, as to a trusted readerAuth "
            + "(skips when the engagement does not advertise ReaderAuthAll support, Capabilities key 3)",
        reference: reference, needsConsent: true
    ) { context throws(CaseStop) in
        let identity = try identity(context)
        guard EngagementCapabilities(of: context.engagement).advertises(EngagementCapabilities.readerAuthAllSupport)
        else { throw .skip("the engagement does not advertise ReaderAuthAll support (Capabilities key 3)") }
        let crafted = request(context, signAll: signer(identity))
        let exchange = try await context.firstMessage("SessionEstablishment (1.1, readerAuthAll)") { session in
            try session.establishment(plaintext: crafted.encoded(session: session))
        }
        guard case .response(let summary, _, _) = exchange.answer, summary.status == 0,
            !summary.releasedElements.isEmpty
        else { throw .fail("expected a DeviceResponse releasing data to the trusted reader, got \(exchange.answer)") }
        return "\(summary)"
    }

    /// A case whose readerAuthAll the holder cannot trust.
    static func refusal(
        _ number: String, _ title: String, needsIdentity: Bool = true,
        signAll: @escaping @Sendable (CaseContext, ReaderIdentity?) throws -> RawDeviceRequest.SignAll
    ) -> ConformanceCase {
        ConformanceCase(
            id: "mDL_SM_mdocRAuthAll_UF_\(number)", title: title,
            expectation: "no data element released (documentErrors, a refusal or the session ended)",
            reference: reference
        ) { context throws(CaseStop) in
            let identity = needsIdentity ? try identity(context) : context.settings.identity
            let exchange = try await context.firstMessage("SessionEstablishment (1.1, \(title))") { session in
                try session.establishment(
                    plaintext: request(context, signAll: signAll(context, identity)).encoded(session: session))
            }
            return try context.expectNothingReleased(exchange)
        }
    }

    static let untrustedRoot = refusal(
        "01", "readerAuthAll by a reader certificate under a CA the holder does not know", needsIdentity: false
    ) { context, _ in
        let pki = try TestPKI.generate()
        context.evidence.note("signed by a fresh reader CA: \(pki.readerCA.subject)")
        return signer(ReaderIdentity(key: pki.readerKey, chain: [pki.reader]))
    }

    static let replayed = refusal(
        "02", "readerAuthAll by the trusted reader over another session's SessionTranscript (a replay)"
    ) { context, identity in
        { transcript, items, info in
            let otherReaderKey = try PrivateKey.generate(context.engagement.eDeviceKey.curve)
            let otherSession = SessionTranscript(
                deviceEngagement: context.engagement,
                eReaderKeyBytes: EmbeddedCBOR(COSEKey(otherReaderKey.publicKey).cbor))
            return try signer(identity!)(otherSession, items, info)
        }
    }

    static let attachedPayload = refusal(
        "03", "readerAuthAll by the trusted reader with its ReaderAuthenticationAllBytes attached"
    ) { _, identity in
        signer(identity!, form: .attachedPayload)
    }

    static let unprotectedAlgorithm = refusal("04", "readerAuthAll by the trusted reader with alg only unprotected") {
        _, identity in
        signer(identity!, form: .algorithmOnlyUnprotected)
    }
}
