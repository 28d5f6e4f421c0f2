import CBOR
import MdocCrypto

extension COSESign1 {
    /// Signs `payload` with a key this process does not hold: `signer` gets the Sig_structure
    /// bytes and returns the COSE-form signature (a secure area signs them). Otherwise as
    /// ``sign(payload:detached:key:algorithm:unprotected:)``.
    public static func sign<E: Error>(
        payload: [UInt8], detached: Bool, algorithm: SignatureAlgorithm, unprotected: [CBORMapEntry] = [],
        signer: ([UInt8]) throws(E) -> [UInt8]
    ) throws(E) -> COSESign1 {
        let protected = COSEProtectedHeader([CBORMapEntry(COSEHeaderLabel.algorithm, .int(algorithm.rawValue))])
        let signature = try signer(sigStructure(protected: protected.bytes, payload: payload))
        return COSESign1(
            protected: protected, unprotected: unprotected, payload: detached ? nil : payload, signature: signature)
    }
}
