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
            #expect(try parsed.isValidAttachedSignature(key: key.publicKey))
            let detached = try COSESign1.sign(payload: payload, detached: true, key: key, algorithm: alg)
            #expect(detached.payload == nil)
            #expect(try detached.isValidDetachedSignature(over: payload, key: key.publicKey))
            #expect(try !detached.isValidDetachedSignature(over: payload + [0], key: key.publicKey))
            #expect(throws: COSEError.detachedPayload) { try detached.isValidAttachedSignature(key: key.publicKey) }
            let other = try PrivateKey.generate(curve)
            #expect(try !parsed.isValidAttachedSignature(key: other.publicKey))
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
        #expect(throws: COSEError.self) { try sig.isValidAttachedSignature(key: ed.publicKey) }
        for bad: CBOR in [
            [1, 2, 3], [.bytes([]), [:], .null], [.bytes([0x01]), [:], .null, .bytes([])],
            [.text("x"), [:], .null, .bytes([])],
        ] {
            #expect(throws: COSEError.self) { try COSESign1(cbor: bad) }
        }
        let noAlg = try COSESign1(cbor: [.bytes([]), [:], .bytes([1]), .bytes([0])])
        #expect(throws: COSEError.algorithmNotProtected) { try noAlg.isValidAttachedSignature(key: p256.publicKey) }
        let unknownAlg = try COSESign1(cbor: [
            .bytes(CBOR.map([CBORMapEntry(1, -9999)]).encoded()), [:], .null, .bytes([0]),
        ])
        #expect(throws: COSEError.unsupportedAlgorithm(-9999)) {
            try unknownAlg.isValidDetachedSignature(over: [1], key: p256.publicKey)
        }
    }

    /// The replay TS 18013-6 tests: a signature made for one session's bytes, sent with those
    /// bytes attached, is refused in another session, and even in its own (detached means
    /// detached), while the same signature detached verifies only over its own bytes.
    @Test func aDetachedSignatureThatArrivesWithItsPayloadAttachedIsRefused() throws {
        let key = try PrivateKey.generate(.p256)
        let recorded = Array("ReaderAuthenticationBytes of session A".utf8)
        let thisSession = Array("ReaderAuthenticationBytes of session B".utf8)
        let detached = try COSESign1.sign(payload: recorded, detached: true, key: key, algorithm: .es256)
        #expect(try detached.isValidDetachedSignature(over: recorded, key: key.publicKey))
        #expect(try !detached.isValidDetachedSignature(over: thisSession, key: key.publicKey))
        let replayed = try COSESign1(cbor: attaching(recorded, to: detached.cbor))
        #expect(throws: COSEError.attachedPayload) {
            try replayed.isValidDetachedSignature(over: thisSession, key: key.publicKey)
        }
        #expect(throws: COSEError.attachedPayload) {
            try replayed.isValidDetachedSignature(over: recorded, key: key.publicKey)
        }
    }

    /// `alg` counts only in the protected header: a valid signature whose alg sits in the
    /// unprotected header alone is refused.
    @Test func anAlgorithmInTheUnprotectedHeaderOnlyIsRefused() throws {
        let key = try PrivateKey.generate(.p256)
        let payload = Array("DeviceAuthenticationBytes".utf8)
        let toBeSigned = COSESign1.sigStructure(protected: [], payload: payload)
        let signature = try key.sign(toBeSigned, algorithm: .es256)
        let sign1 = try COSESign1(cbor: [.bytes([]), .map([CBORMapEntry(1, -7)]), .null, .bytes(signature)])
        #expect(sign1.algorithm == nil)
        #expect(throws: COSEError.algorithmNotProtected) {
            try sign1.isValidDetachedSignature(over: payload, key: key.publicKey)
        }
        let macKey = SecretBytes(SecureRandom.bytes(32))
        let tag = HMAC.sha256(key: macKey, data: COSEMac0.macStructure(protected: [], payload: payload))
        let mac0 = try COSEMac0(cbor: [.bytes([]), .map([CBORMapEntry(1, 5)]), .null, .bytes(tag)])
        #expect(throws: COSEError.algorithmNotProtected) { try mac0.isValidDetachedTag(over: payload, key: macKey) }
    }

    @Test func mac0VerifiesOnlyWithTheSameKeyAndPayload() throws {
        let key = SecretBytes(SecureRandom.bytes(32))
        let mac = COSEMac0.authenticate(payload: [1, 2, 3], detached: true, key: key)
        let parsed = try COSEMac0(cbor: CBOR.decode(mac.cbor.encoded()))
        #expect(try parsed.isValidDetachedTag(over: [1, 2, 3], key: key))
        #expect(try !parsed.isValidDetachedTag(over: [1, 2, 4], key: key))
        #expect(try !parsed.isValidDetachedTag(over: [1, 2, 3], key: SecretBytes(SecureRandom.bytes(32))))
        let attached = try COSEMac0(cbor: attaching([1, 2, 3], to: mac.cbor))
        #expect(throws: COSEError.attachedPayload) { try attached.isValidDetachedTag(over: [1, 2, 3], key: key) }
    }
}
