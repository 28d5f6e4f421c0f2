import CBOR
import COSE
import ISO18013
import MdocCrypto

/// Reader authentication made wrong on purpose, to test how a holder answers it
/// (`mdoc-reader request --hostile`; TS 18013-6 mdoc reader-auth unhappy flows). A correct
/// holder treats the reader as invalid for each of them.
public enum ReaderAuthenticationFault: String, Sendable, CaseIterable {
    /// A readerAuth signed by the reader's real key over ANOTHER session of the same
    /// engagement (another EReaderKey), sent with that session's ReaderAuthenticationBytes
    /// attached: what someone who recorded a trusted reader's request would replay.
    case replayed = "replayed-reader-auth"
    /// A readerAuth whose signature is right for this session, with `alg` only in the
    /// unprotected header.
    case unprotectedAlgorithm = "unprotected-alg"

    /// The DocRequest for `items` in `session`, with this fault in its readerAuth.
    public func docRequest(_ items: ItemsRequest, in session: ReaderSession, identity: ReaderIdentity)
        throws(ISO18013Error) -> DocRequest
    {
        let itemsRequestBytes = EmbeddedCBOR(items.cbor)
        guard let algorithm = identity.key.curve.preferredSignatureAlgorithm else {
            throw .invalid(structure: "reader key", reason: "a \(identity.key.curve.rawValue) key cannot sign")
        }
        let x5chain: [CBORMapEntry] = .x5chain(identity.chain.map(\.der))
        let readerAuth: COSESign1
        do {
            switch self {
            case .replayed:
                let otherReaderKey = try PrivateKey.generate(session.engagement.eDeviceKey.curve)
                let otherSession = SessionTranscript(
                    deviceEngagement: session.engagement,
                    eReaderKeyBytes: EmbeddedCBOR(COSEKey(otherReaderKey.publicKey).cbor), handover: .null)
                let recorded = ReaderAuthentication.bytes(
                    transcript: otherSession, itemsRequestBytes: itemsRequestBytes)
                readerAuth = try COSESign1.sign(
                    payload: recorded, detached: false, key: identity.key, algorithm: algorithm, unprotected: x5chain)
            case .unprotectedAlgorithm:
                readerAuth = try ReaderAuthentication.signWithUnprotectedAlgorithm(
                    payload: ReaderAuthentication.bytes(
                        transcript: session.transcript, itemsRequestBytes: itemsRequestBytes),
                    key: identity.key, algorithm: algorithm, chain: identity.chain)
            }
        } catch let error as ISO18013Error {
            throw error
        } catch let error as CryptoError {
            throw .crypto(error)
        } catch let error as COSEError {
            throw .cose(structure: "readerAuth", error)
        } catch {
            throw .invalid(structure: "readerAuth", reason: "\(error)")
        }
        return try DocRequest(itemsRequestBytes: itemsRequestBytes, readerAuth: readerAuth)
    }
}
