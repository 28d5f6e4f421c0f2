import Base64
import Foundation
import JOSE
import MdocCrypto
import Testing

@Suite struct JWSTests {
    @Test func verifiesTheRFC7515ES256Example() throws {
        // RFC 7515 Appendix A.3.
        let key = try JWK(json: [
            "kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
        ]).publicKey()
        let jws = try JWS(
            compact:
                "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
        )
        #expect(jws.algorithm == .es256)
        try jws.verify(with: key)
        // The payload has CRLFs and spaces: the signing input is what travelled.
        #expect(try jws.payloadJSON()["iss"] == "joe")
    }

    @Test func verifiesTheRFC8037Ed25519Example() throws {
        let key = try JWK(json: ["kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"])
            .publicKey()
        let jws = try JWS(
            compact:
                "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
        )
        try jws.verify(with: key)
        #expect(String(decoding: jws.payload, as: UTF8.self) == "Example of Ed25519 signing")
    }

    @Test(arguments: [Curve.p256, .p384, .p521, .ed25519])
    func signsAndVerifies(_ curve: Curve) throws {
        let key = try PrivateKey.generate(curve)
        let compact = try JWS.sign(payload: Array(#"{"a":1}"#.utf8), header: ["typ": "test+jwt", "kid": "k"], key: key)
        let jws = try JWS(compact: compact)
        #expect(jws.algorithm == JWSAlgorithm.forSigning(with: curve))
        #expect(jws.type == "test+jwt")
        #expect(jws.keyID == "k")
        try jws.verify(with: key.publicKey)
        #expect(throws: JOSEError.invalidSignature) { try jws.verify(with: try PrivateKey.generate(curve).publicKey) }
    }

    @Test func refusesTamperedParts() throws {
        let key = try PrivateKey.generate(.p256)
        let compact = try JWS.sign(payload: Array("payload".utf8), key: key)
        let parts = compact.split(separator: ".").map(String.init)
        let otherPayload = [parts[0], Base64URL.encode(Array("payloaD".utf8)), parts[2]].joined(separator: ".")
        #expect(throws: JOSEError.invalidSignature) { try JWS(compact: otherPayload).verify(with: key.publicKey) }
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[5] ^= 1
        let otherSignature = [parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")
        #expect(throws: JOSEError.invalidSignature) { try JWS(compact: otherSignature).verify(with: key.publicKey) }
        let otherHeader = [Base64URL.encode(Array(#"{"alg":"ES256","x":1}"#.utf8)), parts[1], parts[2]]
            .joined(separator: ".")
        #expect(throws: JOSEError.invalidSignature) { try JWS(compact: otherHeader).verify(with: key.publicKey) }
    }

    @Test func refusesAlgorithmsThatDoNotFitTheKey() throws {
        let p384 = try PrivateKey.generate(.p384)
        // ES256 with a P-384 key is allowed in COSE but not in JOSE.
        #expect(throws: JOSEError.self) { try JWS.sign(payload: [1], key: p384, algorithm: .es256) }
        let p256 = try PrivateKey.generate(.p256)
        let jws = try JWS(compact: try JWS.sign(payload: [1], key: p256))
        #expect(throws: JOSEError.self) { try jws.verify(with: p384.publicKey) }
    }

    @Test func refusesUnsecuredAndCriticalHeaders() throws {
        let key = try PrivateKey.generate(.p256)
        let unsecured = try JWS(compact: JWS.unsecured(payload: Array("{}".utf8)))
        #expect(unsecured.isUnsecured)
        #expect(unsecured.signature.isEmpty)
        #expect(throws: JOSEError.self) { try unsecured.verify(with: key.publicKey) }
        let critical = try JWS(compact: try JWS.sign(payload: [1], header: ["crit": ["exp"], "exp": 1], key: key))
        #expect(throws: JOSEError.self) { try critical.verify(with: key.publicKey) }
    }

    /// RFC 7797 `b64` false changes what the signature covers: refused even without `crit`
    /// (whose absence a sloppy signer might rely on), while `b64` true is the default.
    @Test func refusesAnUnencodedPayloadHeader() throws {
        let key = try PrivateKey.generate(.p256)
        let unencoded = try JWS(compact: try JWS.sign(payload: [1], header: ["b64": false], key: key))
        #expect(throws: JOSEError.unsupportedAlgorithm("JWS b64 header other than true (RFC 7797 unencoded payload)")) {
            try unencoded.verify(with: key.publicKey)
        }
        let text = try JWS(compact: try JWS.sign(payload: [1], header: ["b64": "false"], key: key))
        #expect(throws: JOSEError.self) { try text.verify(with: key.publicKey) }
        let encoded = try JWS(compact: try JWS.sign(payload: [1], header: ["b64": true], key: key))
        try encoded.verify(with: key.publicKey)
    }

    @Test(arguments: ["a.b", "a.b.c.d", "!!.e30.", "e30.e30.", "W10.e30.", "eyJhbGciOiJFUzI1NiJ9.e30=.", ""])
    func refusesMalformedCompactForms(_ compact: String) {
        #expect(throws: JOSEError.self) { try JWS(compact: compact) }
    }

    @Test func readsTheCertificateChainFromX5c() throws {
        let rootKey = try PrivateKey.generate(.p256)
        var builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "JWS test"), subjectPublicKey: rootKey.publicKey,
            notBefore: Date(timeIntervalSinceNow: -60), notAfter: Date(timeIntervalSinceNow: 3600))
        builder.basicConstraints = .endEntity
        let certificate = try builder.selfSigned(with: rootKey)
        let compact = try JWS.sign(payload: [1], header: ["x5c": JWS.x5cHeader([certificate])], key: rootKey)
        let jws = try JWS(compact: compact)
        #expect(try jws.certificateChain() == [certificate])
        try jws.verify(with: try jws.certificateChain()[0].publicKey)

        // base64url is not what x5c carries.
        let urlSafe = try JWS.sign(
            payload: [1], header: ["x5c": [.string(Base64URL.encode(certificate.der))]], key: rootKey)
        if Base64URL.encode(certificate.der) != Data(certificate.der).base64EncodedString() {
            #expect(throws: JOSEError.self) { try JWS(compact: urlSafe).certificateChain() }
        }
        #expect(try JWS(compact: try JWS.sign(payload: [1], key: rootKey)).certificateChain().isEmpty)
        let empty = try JWS.sign(payload: [1], header: ["x5c": []], key: rootKey)
        #expect(throws: JOSEError.self) { try JWS(compact: empty).certificateChain() }
        // A chain longer than anyone's is refused before a certificate is parsed.
        let entry = JSONValue.string(Data(certificate.der).base64EncodedString())
        let sixteen = try JWS.sign(
            payload: [1], header: ["x5c": .array(Array(repeating: entry, count: 16))], key: rootKey)
        #expect(try JWS(compact: sixteen).certificateChain().count == 16)
        let long = try JWS.sign(payload: [1], header: ["x5c": .array(Array(repeating: entry, count: 17))], key: rootKey)
        #expect(throws: JOSEError.malformed("x5c has 17 certificates; at most 16 are read")) {
            try JWS(compact: long).certificateChain()
        }
    }
}
