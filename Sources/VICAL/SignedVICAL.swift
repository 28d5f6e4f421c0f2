import CBOR
import COSE
import FoundationEssentials
import MdocCrypto

/// A VICAL as it travels: a COSE_Sign1 (untagged or tag 18) whose attached payload is the
/// VICAL, signed by the leaf of its x5chain (a single bstr or an array).
public struct SignedVICAL: Sendable {
    public let sign1: COSESign1
    public let vical: VICAL
    /// The x5chain, leaf (the VICAL signer) first.
    public let signerChain: [Certificate]

    public init(bytes: [UInt8]) throws(VICALError) {
        do {
            sign1 = try COSESign1(cbor: CBOR.decode(bytes))
        } catch {
            throw .notSigned("\(error)")
        }
        guard let payload = sign1.payload else { throw .notSigned("the payload is detached") }
        guard let ders = sign1.x5chain, !ders.isEmpty else {
            throw .signerCertificate("the COSE_Sign1 carries no x5chain")
        }
        var chain: [Certificate] = []
        for der in ders {
            do {
                chain.append(try Certificate(der: der))
            } catch {
                throw .signerCertificate("a certificate of the x5chain does not parse (\(error))")
            }
        }
        signerChain = chain
        vical = try VICAL(payload: payload)
    }

    /// The signer certificate (the x5chain leaf).
    public var signer: Certificate { signerChain[0] }

    /// Checks the signature with the x5chain leaf's key, and nothing else.
    public func checkSignature() throws(VICALError) {
        let valid: Bool
        do {
            valid = try sign1.isValidAttachedSignature(key: signer.publicKey)
        } catch {
            throw .badSignature("\(error)")
        }
        guard valid else { throw .badSignature("not made with the key of \(signer.subject)") }
    }

    /// Accepts the list: the signature with the x5chain leaf, the leaf's VICAL signer EKU, its
    /// chain to one of `anchors` at `time`, `time` within `date ... nextUpdate`. The result
    /// names the IACAs that become trust anchors, each for its docTypes only.
    public func verify(anchors: [Certificate], at time: Date) throws(VICALError) -> VerifiedVICAL {
        try checkSignature()
        guard signer.extendedKeyUsage.contains(VICAL.signerEKU) else {
            throw .signerNotForVICAL(subject: signer.subject)
        }
        let validation = CertificateChainValidator.validate(chain: signerChain, anchors: anchors, at: time)
        guard validation.isValid else {
            throw .untrustedSigner(validation.failure ?? "no VICAL anchor")
        }
        if let next = vical.nextUpdate, time > next {
            throw .expired(nextUpdate: RFC3339.string(from: next))
        }
        if vical.date > time {
            throw .notYetValid(date: RFC3339.string(from: vical.date))
        }
        return VerifiedVICAL(vical: vical)
    }
}
