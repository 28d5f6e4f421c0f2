import FoundationEssentials
import MdocCrypto

/// Why a JWS's `x5c` chain did not vouch for it (each caller words it for its own context).
public enum CertificateChainFailure: Error, Sendable {
    /// The `x5c` header is malformed.
    case unreadable(JOSEError)
    /// There is no `x5c` header.
    case missing
    /// The chain from `leaf` reaches none of the trust anchors.
    case untrusted(leaf: Certificate, reason: String)
    /// The signature does not verify with `leaf`'s key (or the key cannot be read).
    case signature(leaf: Certificate, reason: String)
}

extension JWS {
    /// Checks that the first `x5c` certificate's chain leads to one of `anchors` at `time`,
    /// then the signature with that certificate's key. Returns the anchor.
    public func verifyWithCertificateChain(anchors: [Certificate], at time: Date) throws(CertificateChainFailure)
        -> Certificate
    {
        let chain: [Certificate]
        do throws(JOSEError) {
            chain = try certificateChain()
        } catch {
            throw .unreadable(error)
        }
        guard let leaf = chain.first else { throw .missing }
        let result = CertificateChainValidator.validate(chain: chain, anchors: anchors, at: time)
        guard result.isValid, let anchor = result.trustAnchor else {
            throw .untrusted(leaf: leaf, reason: result.failure ?? "no path")
        }
        do {
            try verify(with: leaf.publicKey)
        } catch {
            throw .signature(leaf: leaf, reason: "\(error)")
        }
        return anchor
    }
}
