import CBOR
import COSE
import ISO18013
import MdocCrypto
import MdocIssuer
import Presentation

/// Reader authentication failures (mDL_SM_mdocRAuth_UF_NN): a readerAuth the holder cannot
/// trust must not get the data a trusted reader would (what the user then sees is the
/// holder's; the case checks what leaves it). Meaningful next to BLE_Session_01, which shows
/// the holder releases data to the trusted reader.
enum ReaderAuthenticationCases {
    static let all = [untrustedCertificate, badSignature, attachedPayload, unprotectedAlgorithm]

    static let reference =
        "ISO/IEC 18013-5 9.1.4 (mdoc reader authentication), 12.5 / Annex B (reader certificate profile); "
        + "TS 18013-6 mdoc reader authentication test cases"

    /// A case whose DocRequest `craft` makes; `needsIdentity`: skips without `--reader-key`.
    static func refusal(
        _ number: String, _ title: String, needsIdentity: Bool = true,
        craft: @escaping @Sendable (CaseContext, ReaderSession) throws -> DocRequest
    ) -> ConformanceCase {
        ConformanceCase(
            id: "mDL_SM_mdocRAuth_UF_\(number)", title: title,
            expectation: "no data element released (documentErrors, a refusal or the session ended)",
            reference: reference
        ) { context throws(CaseStop) in
            if needsIdentity, context.settings.identity == nil {
                throw .skip("needs a reader certificate the holder trusts (--reader-key, --reader-cert)")
            }
            let exchange = try await context.firstMessage("SessionEstablishment (\(title))") { session in
                try session.establishment(for: DeviceRequest(docRequests: [craft(context, session)]))
            }
            return try context.expectNothingReleased(exchange)
        }
    }

    static let untrustedCertificate = refusal(
        "01", "readerAuth by a reader certificate under a CA the holder does not know", needsIdentity: false
    ) { context, session in
        let pki = try TestPKI.generate()
        let stranger = ReaderIdentity(key: pki.readerKey, chain: [pki.reader])
        context.evidence.note("signed by a fresh reader CA: \(pki.readerCA.subject)")
        return try signed(context.settings.request, session: session, identity: stranger)
    }

    static let badSignature = refusal("02", "readerAuth whose signature has one bit flipped") { context, session in
        let good = try signed(context.settings.request, session: session, identity: context.settings.identity!)
        guard let auth = good.readerAuth, var parts = auth.cbor.arrayValue, var signature = parts.last?.bytesValue,
            !signature.isEmpty
        else { throw CaseStop.skip("no readerAuth to damage") }
        signature[signature.count / 2] ^= 0x01
        parts[parts.count - 1] = .bytes(signature)
        return try DocRequest(itemsRequestBytes: good.itemsRequestBytes, readerAuth: COSESign1(cbor: .array(parts)))
    }

    static let attachedPayload = refusal(
        "03", "readerAuth signed for another session, with that session's payload attached"
    ) { context, session in
        try ReaderAuthenticationFault.replayed.docRequest(
            context.settings.request, in: session, identity: context.settings.identity!)
    }

    static let unprotectedAlgorithm = refusal("04", "readerAuth with alg only in the unprotected header") {
        context, session in
        try ReaderAuthenticationFault.unprotectedAlgorithm.docRequest(
            context.settings.request, in: session, identity: context.settings.identity!)
    }

    /// The DocRequest a correct reader with `identity` sends in `session`.
    static func signed(_ items: ItemsRequest, session: ReaderSession, identity: ReaderIdentity) throws -> DocRequest {
        let unsigned = DocRequest(itemsRequest: items)
        guard let algorithm = identity.key.curve.preferredSignatureAlgorithm else {
            throw CaseStop.skip("a \(identity.key.curve.rawValue) key cannot sign")
        }
        let auth = try ReaderAuthentication.sign(
            transcript: session.transcript, itemsRequestBytes: unsigned.itemsRequestBytes, key: identity.key,
            algorithm: algorithm, certificateChain: identity.chain)
        return try DocRequest(itemsRequestBytes: unsigned.itemsRequestBytes, readerAuth: auth)
    }
}
