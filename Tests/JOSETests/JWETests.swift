import Base64
import Foundation
import MdocCrypto
import TestSupport
import Testing

@testable import JOSE

@Suite struct JWETests {
    @Test func decryptsTheISO18013_7AnnexBResponse() throws {
        let jwkValue = try #require(
            Vectors.entry(Vectors.oid4vp, "iso18013-7_annexB_reader_ephemeral_private_jwk")["value"])
        let key = try JWK(jsonText: try jsonText(jwkValue))
        let compact = try #require(
            Vectors.entry(Vectors.oid4vp, "iso18013-7_annexB_JARM_compact_JWE")["value"] as? String)
        let jwe = try JWE(compact: compact)
        #expect(jwe.contentEncryption == .a256GCM)
        #expect(jwe.keyID == key.keyID)
        #expect(jwe.agreementPartyUInfo == Array("1234567890abcdefgh".utf8))
        #expect(jwe.agreementPartyVInfo == Array("abcdefgh1234567890".utf8))
        let plaintext = try jwe.decrypt(with: key)
        let response = try JSONValue(parsing: plaintext)
        let vpToken = try #require(response["vp_token"]?.stringValue)
        let expected = Vectors.entry(Vectors.oid4vp, "iso18013-7_annexB_vp_token_DeviceResponse_b64url")["value"]
        #expect(vpToken == expected as? String)
    }

    @Test func concatKDFMatchesRFC7518AppendixC() throws {
        // RFC 7518 Appendix C: Alice's ephemeral key, Bob's key, apu "Alice", apv "Bob", A128GCM.
        let alice = try JWK(json: [
            "kty": "EC", "crv": "P-256", "x": "gI0GAILBdu7T53akrFmMyGcsF3n5dO7MmwNBHKW5SV0",
            "y": "SLW_xSffzlPWrHEVI30DHM_4egVwt3NQqeUD7nMFpps", "d": "0_NxaRPUMQoAJt50Gz8YiTr8gRTwyEaCumd-MToTmIo",
        ])
        let bob = try JWK(json: [
            "kty": "EC", "crv": "P-256", "x": "weNJy2HscCSM6AEDTDg04biOvhFhyyWvOHQfeF_PxMQ",
            "y": "e8lnCO-AlStT-NJVX-crhB7QRYhiix03illJOVAOyck", "d": "VEmDZpDXXK8p8N0Cndsxs924q6nS1RXFASRl6BfUqdw",
        ])
        let sender = try JWE.contentKey(
            privateKey: alice.privateKey(), peer: bob.publicKey(), encryption: .a128GCM, apu: Array("Alice".utf8),
            apv: Array("Bob".utf8))
        let recipient = try JWE.contentKey(
            privateKey: bob.privateKey(), peer: alice.publicKey(), encryption: .a128GCM, apu: Array("Alice".utf8),
            apv: Array("Bob".utf8))
        #expect(Base64URL.encode(sender.bytes) == "VqqN6vgjbSBcIijNcacQGg")
        #expect(recipient.bytes == sender.bytes)
    }

    @Test(arguments: [JWEContentEncryption.a128GCM, .a192GCM, .a256GCM])
    func roundTrips(_ encryption: JWEContentEncryption) throws {
        let key = try PrivateKey.generate(.p256)
        let recipient = try JWK(publicKey: key.publicKey, keyID: "verifier-1", use: "enc", algorithm: "ECDH-ES")
        let plaintext = Array(#"{"vp_token":{"q":["abc"]}}"#.utf8)
        let compact = try JWE.encrypt(
            plaintext, to: recipient, encryption: encryption, agreementPartyUInfo: [1, 2, 3],
            agreementPartyVInfo: Array("nonce".utf8))
        let jwe = try JWE(compact: compact)
        #expect(jwe.header["alg"] == "ECDH-ES")
        #expect(jwe.contentEncryption == encryption)
        #expect(jwe.keyID == "verifier-1")
        #expect(jwe.agreementPartyUInfo == [1, 2, 3])
        #expect(jwe.initializationVector.count == 12)
        #expect(try jwe.ephemeralPublicKey().curve == .p256)
        #expect(try jwe.ephemeralPublicKey().hasPrivateKey == false)
        #expect(try jwe.decrypt(with: key) == plaintext)
    }

    @Test(arguments: [Curve.p384, .p521, .x25519, .x448])
    func roundTripsOnOtherCurves(_ curve: Curve) throws {
        let key = try PrivateKey.generate(curve)
        let compact = try JWE.encrypt([9, 8, 7], to: try JWK(publicKey: key.publicKey), encryption: .a128GCM)
        let jwe = try JWE(compact: compact)
        #expect(jwe.keyID == nil)
        #expect(jwe.header["apu"] == nil)
        #expect(try jwe.decrypt(with: key) == [9, 8, 7])
    }

    @Test func tamperingFails() throws {
        let key = try PrivateKey.generate(.p256)
        let compact = try JWE.encrypt(Array("secret".utf8), to: try JWK(publicKey: key.publicKey), encryption: .a256GCM)
        var parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for index in [2, 3, 4] {
            var tampered = parts
            var bytes = try #require(Base64URL.decode(tampered[index]))
            bytes[0] ^= 0x01
            tampered[index] = Base64URL.encode(bytes)
            #expect(throws: JOSEError.decryptionFailed) {
                try JWE(compact: tampered.joined(separator: ".")).decrypt(with: key)
            }
        }
        // A header changed after encryption (here: an apu added) changes the AAD and the key.
        var header = try JWE(compact: compact).header
        header["apu"] = .string(Base64URL.encode([1]))
        parts[0] = Base64URL.encode(JSONValue.object(header).serialized)
        #expect(throws: JOSEError.decryptionFailed) {
            try JWE(compact: parts.joined(separator: ".")).decrypt(with: key)
        }
        // Another recipient key.
        #expect(throws: JOSEError.decryptionFailed) {
            try JWE(compact: compact).decrypt(with: try PrivateKey.generate(.p256))
        }
        // A key on another curve.
        #expect(throws: JOSEError.self) { try JWE(compact: compact).decrypt(with: try PrivateKey.generate(.p384)) }
    }

    @Test func refusesWhatIsNotDirectECDHES() throws {
        let key = try PrivateKey.generate(.p256)
        #expect(throws: JOSEError.self) {
            try JWE.encrypt(
                [1], to: try JWK(publicKey: key.publicKey, algorithm: "ECDH-ES+A128KW"), encryption: .a128GCM)
        }
        #expect(throws: JOSEError.self) {
            try JWE.encrypt(
                [1], to: try JWK(publicKey: try PrivateKey.generate(.ed25519).publicKey), encryption: .a128GCM)
        }
        let compact = try JWE.encrypt([1], to: try JWK(publicKey: key.publicKey), encryption: .a128GCM)
        var parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[1] = Base64URL.encode([1, 2, 3])
        #expect(throws: JOSEError.self) { try JWE(compact: parts.joined(separator: ".")) }
        var header = try JWE(compact: compact).header
        header["enc"] = "A128CBC-HS256"
        parts[1] = ""
        parts[0] = Base64URL.encode(JSONValue.object(header).serialized)
        #expect(throws: JOSEError.self) { try JWE(compact: parts.joined(separator: ".")).decrypt(with: key) }
        #expect(throws: JOSEError.self) { try JWE(compact: "a.b.c") }
    }
}
