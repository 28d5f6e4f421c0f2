import CBOR
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import TestSupport

/// Shared inputs of the issuer tests.
enum IssuerFixtures {
    static var directory: URL { Vectors.fixtures }

    static func url(_ path: String) -> URL { directory.appendingPathComponent(path) }

    /// The committed claims of the fictional mDL.
    static func mdlClaims() throws -> DocumentClaims {
        try MDLClaims.load(contentsOf: url("mdl-claims.json"))
    }

    /// A small PKI made once per test process (key generation is cheap, but one is enough).
    static let pki: TestPKI = {
        do {
            return try TestPKI.generate()
        } catch {
            fatalError("cannot generate a test PKI: \(error)")
        }
    }()

    /// The committed claims issued now with `pki`, to a fresh device key.
    static func issueMDL(deviceKey: PublicKey? = nil, pki: TestPKI = pki) throws -> (IssuerSigned, PublicKey) {
        let key = try deviceKey ?? PrivateKey.generate(.p256).publicKey
        let now = Date()
        let issued = try MdocIssuer.issue(
            try mdlClaims(), deviceKey: key, pki: pki, validFrom: now, validUntil: now.addingTimeInterval(30 * 86_400),
            signed: now)
        return (issued, key)
    }

    /// The committed claims with top-level members removed, or replaced (or added) with the
    /// given JSON texts (appended at the end).
    static func claimsJSON(removing removed: Set<String> = [], replacing replaced: [String: String] = [:]) throws
        -> [UInt8]
    {
        let data = try Data(contentsOf: url("mdl-claims.json"))
        var object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        for key in removed.union(replaced.keys) { object.removeValue(forKey: key) }
        var text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        text.removeLast()  // "}"
        for (key, json) in replaced { text += ",\"\(key)\":\(json)" }
        return Array((text + "}").utf8)
    }

    static func parse(_ json: String) throws(IssuerError) -> DocumentClaims {
        try MDLClaims.parse(Array(json.utf8), relativeTo: directory)
    }
}

extension Array where Element == UInt8 {
    /// The first index of `needle`, if any.
    func firstRange(of needle: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty, needle.count <= count else { return nil }
        for start in 0...(count - needle.count) where self[start] == needle[0] {
            if Array(self[start..<start + needle.count]) == needle { return start..<start + needle.count }
        }
        return nil
    }
}
