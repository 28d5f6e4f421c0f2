import CBOR
import COSE
import MdocCrypto

extension ReaderAuthentication {
    /// A detached COSE_Sign1 over `payload` with `alg` only in the unprotected header (the
    /// protected header empty) and the chain in x5chain: a shape every verifier here refuses
    /// (PROTOCOL.md: `alg` belongs in the protected header). For the tests and conformance
    /// cases that show a holder refuses it, as readerAuth or in readerAuthAll.
    public static func signWithUnprotectedAlgorithm(
        payload: [UInt8], key: PrivateKey, algorithm: SignatureAlgorithm, chain: [Certificate]
    ) throws(ISO18013Error) -> COSESign1 {
        let signature: [UInt8]
        do {
            signature = try key.sign(COSESign1.sigStructure(protected: [], payload: payload), algorithm: algorithm)
        } catch {
            throw .crypto(error)
        }
        let unprotected: [CBORMapEntry] =
            [CBORMapEntry(COSEHeaderLabel.algorithm, .int(algorithm.rawValue))] + .x5chain(chain.map(\.der))
        do {
            return try COSESign1(cbor: .array([.bytes([]), .map(unprotected), .null, .bytes(signature)]))
        } catch {
            throw .cose(structure: "readerAuth", error)
        }
    }
}
