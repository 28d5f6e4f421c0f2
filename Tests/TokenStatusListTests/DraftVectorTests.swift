import Base64
import CBOR
import Foundation
import JOSE
import MdocCrypto
import TestSupport
import Testing

@testable import TokenStatusList

/// The examples of draft-ietf-oauth-status-list-20 (Fixtures/vectors/status-list).
struct DraftVectorTests {
    static let directory = Vectors.fixtures.appendingPathComponent("vectors/status-list")

    nonisolated(unsafe) static let vectors: [String: Any] = {
        let data = try! Data(contentsOf: directory.appendingPathComponent("draft-20-vectors.json"))
        return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    }()

    static var lists: [[String: Any]] { vectors["status_lists"] as! [[String: Any]] }

    static func file(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// The draft's example key (kid 12), public part.
    static func exampleKey() throws -> PublicKey {
        let jwk = vectors["example_public_key"] as! [String: Any]
        let text = #"{"kty":"EC","crv":"P-256","x":"\#(jwk["x"]!)","y":"\#(jwk["y"]!)"}"#
        return try JWK(jsonText: text).publicKey()
    }

    static func expectedStatuses(_ list: [String: Any]) -> [UInt64: UInt8] {
        var map: [UInt64: UInt8] = [:]
        for (key, value) in list["statuses"] as! [String: Any] {
            let number = (value as! NSNumber).intValue
            if number != 0 { map[UInt64(key)!] = UInt8(number) }
        }
        return map
    }

    @Test("every list of the draft decodes, CBOR and JSON, to the draft's statuses", arguments: 0..<6)
    func decodeEveryList(_ position: Int) throws {
        let list = Self.lists[position]
        let bits = list["bits"] as! Int
        let size = list["size"] as! Int
        let cbor = try CBOR.decode([UInt8](hex: list["cbor_hex"] as! String))
        let fromCBOR = try StatusList(cbor: cbor, maximumBytes: 16 << 20)
        let fromJSON = try StatusList(
            json: ["bits": .number(Double(bits)), "lst": .string(list["json_lst"] as! String)], maximumBytes: 16 << 20)
        #expect(fromCBOR == fromJSON)
        #expect(fromCBOR.bits == bits)
        #expect(fromCBOR.count == size, "\(list["name"]!)")
        #expect(fromCBOR.nonZero == Self.expectedStatuses(list), "\(list["name"]!)")
        // Every listed index, the zero ones included, reads as the draft says.
        for (key, value) in list["statuses"] as! [String: Any] {
            #expect(try fromCBOR.value(at: UInt64(key)!) == UInt8((value as! NSNumber).intValue))
        }
        #expect(throws: StatusListError.indexOutOfRange(index: UInt64(size), count: size)) {
            try fromCBOR.value(at: UInt64(size))
        }
    }

    @Test("the short lists pack least significant bit first and compress as the draft's (zlib level 9)")
    func shortListsByteForByte() throws {
        for list in Self.lists where list["byte_array_hex"] != nil {
            let bits = list["bits"] as! Int
            let built = try StatusList(
                bits: bits, count: list["size"] as! Int, statuses: Self.expectedStatuses(list))
            #expect(built.bytes == [UInt8](hex: list["byte_array_hex"] as! String))
            #expect(try built.compressed() == [UInt8](hex: list["compressed_hex"] as! String))
            #expect(try built.cbor().encoded() == [UInt8](hex: list["cbor_hex"] as! String))
            #expect(try built.json()["lst"]?.stringValue == list["json_lst"] as? String)
        }
    }

    @Test("the draft's CWT token: claims read, signature verifies with the example key, tampering is caught")
    func draftCWT() throws {
        let bytes = try Self.file("status_list_cwt.cbor")
        let token = try StatusListToken(bytes: bytes, format: .cwt)
        #expect(token.subject == "https://example.com/statuslists/1")
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_686_920_170))
        #expect(token.expiresAt == Date(timeIntervalSince1970: 2_291_720_170))
        #expect(token.timeToLive == 43200)
        #expect(token.statusList.bytes == [0xb9, 0xa3])
        #expect(try token.statusList.status(at: 0) == .invalid)
        #expect(try token.statusList.status(at: 1) == .valid)
        #expect(token.certificateChain.isEmpty)
        try token.verifySignature(with: try Self.exampleKey())
        // No x5chain: the full check has no signer to chain.
        #expect(throws: StatusListError.noSignerCertificate) {
            try token.verify(uri: token.subject, trustAnchors: [], at: Date(timeIntervalSince1970: 1_700_000_000))
        }
        var tampered = bytes
        tampered[tampered.count - 1] ^= 1
        #expect {
            try StatusListToken(bytes: tampered, format: .cwt).verifySignature(with: try Self.exampleKey())
        } throws: { error in
            if case .badSignature = error as? StatusListError { return true }
            return false
        }
        #expect(throws: StatusListError.tokenTooLarge(limit: 100)) {
            try StatusListToken(bytes: bytes, format: .cwt, limits: StatusListLimits(maximumTokenBytes: 100))
        }
    }

    @Test("the draft's JWT token: claims read, signature verifies with the example key")
    func draftJWT() throws {
        let bytes = try Self.file("status_list_jwt.jwt")
        let token = try StatusListToken(bytes: bytes, format: .jwt)
        #expect(token.format == .jwt)
        #expect(token.subject == "https://example.com/statuslists/1")
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_686_920_170))
        #expect(token.expiresAt == Date(timeIntervalSince1970: 2_291_720_170))
        #expect(token.timeToLive == 43200)
        #expect(token.statusList.nonZero == [0: 1, 3: 1, 4: 1, 5: 1, 7: 1, 8: 1, 9: 1, 13: 1, 15: 1])
        try token.verifySignature(with: try Self.exampleKey())
        let other = try PrivateKey.generate(.p256).publicKey
        #expect(throws: StatusListError.self) { try token.verifySignature(with: other) }
        // A CWT is not a JWT and the other way round.
        #expect(throws: StatusListError.self) { try StatusListToken(bytes: bytes, format: .cwt) }
        #expect(throws: StatusListError.self) {
            try StatusListToken(bytes: try Self.file("status_list_cwt.cbor"), format: .jwt)
        }
    }

    @Test("the draft's Referenced Token carries a reference StatusReference reads")
    func referencedToken() throws {
        let token = try CBOR.decode(try Self.file("referenced_token_cwt.cbor"))
        guard case .tagged(18, let sign1) = token, case .bytes(let payload)? = sign1.arrayValue?[2] else {
            Issue.record("not a tag-18 COSE_Sign1 with a payload")
            return
        }
        let claims = try CBOR.decode(payload)
        let reference = try StatusReference(statusClaim: try #require(claims[intKey: 65535]))
        #expect(reference == StatusReference(index: 0, uri: "https://example.com/statuslists/1"))
        #expect(try StatusReference(statusClaim: reference.cbor) == reference)
        #expect(try StatusReference(statusClaim: reference.json) == reference)
    }
}
