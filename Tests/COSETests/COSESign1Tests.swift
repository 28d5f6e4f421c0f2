import CBOR
import COSE
import MdocCrypto
import TestSupport
import Testing

struct COSESign1Tests {
    @Test func attachedAndDetachedSignaturesVerifyAndTamperingIsCaught() throws {
        for (curve, alg) in [
            (Curve.p256, SignatureAlgorithm.es256), (.p384, .es384), (.p521, .es512), (.ed25519, .edDSA),
            (.ed448, .edDSA),
        ] {
            let key = try PrivateKey.generate(curve)
            let payload = Array("payload".utf8)
            let attached = try COSESign1.sign(payload: payload, detached: false, key: key, algorithm: alg)
            let parsed = try COSESign1(cbor: CBOR.decode(attached.cbor.encoded()))
            #expect(parsed.payload == payload)
            #expect(try parsed.isValidSignature(key: key.publicKey))
            let detached = try COSESign1.sign(payload: payload, detached: true, key: key, algorithm: alg)
            #expect(detached.payload == nil)
            #expect(try detached.isValidSignature(key: key.publicKey, detachedPayload: payload))
            #expect(try !detached.isValidSignature(key: key.publicKey, detachedPayload: payload + [0]))
            #expect(throws: COSEError.self) { try detached.isValidSignature(key: key.publicKey) }
            let other = try PrivateKey.generate(curve)
            #expect(try !parsed.isValidSignature(key: other.publicKey))
        }
    }

    @Test func x5chainIsReadAsOneCertificateOrAnArray() throws {
        let key = try PrivateKey.generate(.p256)
        let one = try COSESign1.sign(
            payload: [1], detached: true, key: key, algorithm: .es256, unprotected: .x5chain([[1, 2]]))
        #expect(one.x5chain == [[1, 2]])
        let two = try COSESign1.sign(
            payload: [1], detached: true, key: key, algorithm: .es256, unprotected: .x5chain([[1], [2]]))
        #expect(two.x5chain == [[1], [2]])
        // The Annex D readerAuth carries the reader certificate as a single bstr.
        let readerAuth = try COSESign1(cbor: CBOR.decode(Vectors.annexD("ReaderAuth_COSE_Sign1")))
        #expect(readerAuth.x5chain == [Vectors.annexD("Reader_certificate")])
        #expect(readerAuth.algorithm == .es256)
    }

    @Test func aMismatchedAlgorithmOrBrokenStructureIsAnError() throws {
        let p256 = try PrivateKey.generate(.p256)
        let sig = try COSESign1.sign(payload: [1], detached: false, key: p256, algorithm: .es256)
        let ed = try PrivateKey.generate(.ed25519)
        #expect(throws: COSEError.self) { try sig.isValidSignature(key: ed.publicKey) }
        for bad: CBOR in [
            [1, 2, 3], [.bytes([]), [:], .null], [.bytes([0x01]), [:], .null, .bytes([])],
            [.text("x"), [:], .null, .bytes([])],
        ] {
            #expect(throws: COSEError.self) { try COSESign1(cbor: bad) }
        }
        let noAlg = try COSESign1(cbor: [.bytes([]), [:], .bytes([1]), .bytes([0])])
        #expect(throws: COSEError.unsupportedAlgorithm(nil)) { try noAlg.isValidSignature(key: p256.publicKey) }
    }

    @Test func mac0VerifiesOnlyWithTheSameKeyAndPayload() throws {
        let key = SecretBytes(SecureRandom.bytes(32))
        let mac = COSEMac0.authenticate(payload: [1, 2, 3], detached: true, key: key)
        let parsed = try COSEMac0(cbor: CBOR.decode(mac.cbor.encoded()))
        #expect(try parsed.isValidTag(key: key, detachedPayload: [1, 2, 3]))
        #expect(try !parsed.isValidTag(key: key, detachedPayload: [1, 2, 4]))
        #expect(try !parsed.isValidTag(key: SecretBytes(SecureRandom.bytes(32)), detachedPayload: [1, 2, 3]))
    }
}
