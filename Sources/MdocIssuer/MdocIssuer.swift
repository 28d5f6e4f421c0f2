import CBOR
import COSE
import Foundation
import ISO18013
import MdocCrypto

/// A test issuer: makes IssuerSigned credentials (ISO 18013-5 9.1.2) signed by a document
/// signer key.
public enum MdocIssuer {
    /// Length of each item's random salt (the standard asks for at least 16 bytes).
    public static let saltLength = 32

    /// Issues a credential.
    ///
    /// Each element becomes an IssuerSignedItem with a fresh 32-byte random salt and a digest ID
    /// unique in its namespace; the IDs are a random permutation of 0..<n, so they do not reveal
    /// the elements' order. The MSO holds the digest of each IssuerSignedItemBytes (tag 24
    /// included), the device key, the doc type and the validity; issuerAuth is a COSE_Sign1 with
    /// the MSO bytes attached (MobileSecurityObjectBytes), `alg` chosen by the document signer
    /// key's curve, and the chain in x5chain (unprotected).
    ///
    /// - Parameters:
    ///   - nameSpaces: namespace => elements (identifier, value), in the order they are to be
    ///     carried.
    ///   - deviceKey: the holder's device key (MSO deviceKeyInfo.deviceKey).
    ///   - documentSignerChain: the document signer certificate first, then any intermediates
    ///     (not the IACA root). One certificate goes into x5chain as a single bstr.
    ///   - validFrom, validUntil, signed: the MSO validityInfo (whole seconds are used).
    ///   - status: the MSO `status` (a Token Status List reference), if any.
    public static func issue(
        docType: String, nameSpaces: [(String, [(String, CBOR)])], deviceKey: PublicKey,
        documentSignerKey: PrivateKey, documentSignerChain: [Certificate], validFrom: Date, validUntil: Date,
        signed: Date = Date(), expectedUpdate: Date? = nil, digestAlgorithm: DigestAlgorithm = .sha256,
        status: CBOR? = nil
    ) throws(IssuerError) -> IssuerSigned {
        try checkArguments(
            docType: docType, nameSpaces: nameSpaces, documentSignerKey: documentSignerKey,
            documentSignerChain: documentSignerChain, validFrom: validFrom, validUntil: validUntil)
        guard let algorithm = documentSignerKey.curve.preferredSignatureAlgorithm else {
            throw .invalidArgument("a \(documentSignerKey.curve.rawValue) document signer key cannot sign")
        }

        var random = SecureRandomGenerator()
        var issued: [IssuerSigned.NameSpace] = []
        var valueDigests: [String: [UInt64: [UInt8]]] = [:]
        for (name, elements) in nameSpaces {
            var digestIDs = (0..<UInt64(elements.count)).map { $0 }
            digestIDs.shuffle(using: &random)
            var items: [IssuerSignedItem] = []
            var digests: [UInt64: [UInt8]] = [:]
            for ((identifier, value), digestID) in zip(elements, digestIDs) {
                let item = IssuerSignedItem(
                    digestID: digestID, random: SecureRandom.bytes(saltLength), elementIdentifier: identifier,
                    elementValue: value)
                digests[digestID] = Digest.hash(item.bytes.taggedEncoding, algorithm: digestAlgorithm)
                items.append(item)
            }
            issued.append(IssuerSigned.NameSpace(name, items))
            valueDigests[name] = digests
        }

        let mso = MobileSecurityObject(
            digestAlgorithm: digestAlgorithm.msoName, valueDigests: valueDigests, deviceKey: COSEKey(deviceKey),
            docType: docType,
            validityInfo: .init(
                signed: wholeSeconds(signed), validFrom: wholeSeconds(validFrom), validUntil: wholeSeconds(validUntil),
                expectedUpdate: expectedUpdate.map(wholeSeconds)), status: status)
        // MobileSecurityObjectBytes = #6.24(bstr .cbor MobileSecurityObject).
        let msoBytes = EmbeddedCBOR(mso.cbor).taggedEncoding
        let issuerAuth: COSESign1
        do {
            issuerAuth = try COSESign1.sign(
                payload: msoBytes, detached: false, key: documentSignerKey, algorithm: algorithm,
                unprotected: .x5chain(documentSignerChain.map(\.der)))
        } catch {
            throw .cose(error)
        }
        return IssuerSigned(nameSpaces: issued, issuerAuth: issuerAuth)
    }

    /// Issues the claims of a claims file with a test PKI's document signer.
    public static func issue(
        _ claims: DocumentClaims, deviceKey: PublicKey, pki: TestPKI, validFrom: Date, validUntil: Date,
        signed: Date = Date(), digestAlgorithm: DigestAlgorithm = .sha256, status: CBOR? = nil
    ) throws(IssuerError) -> IssuerSigned {
        try issue(
            docType: claims.docType, nameSpaces: claims.nameSpaces, deviceKey: deviceKey,
            documentSignerKey: pki.documentSignerKey, documentSignerChain: [pki.documentSigner], validFrom: validFrom,
            validUntil: validUntil, signed: signed, digestAlgorithm: digestAlgorithm, status: status)
    }

    /// The "document" file form: a DeviceResponse-shaped container without deviceSigned,
    /// `{"version": "1.0", "documents": [{"docType", "issuerSigned"}], "status": 0}`.
    public static func documentContainer(docType: String, issuerSigned: IssuerSigned) -> [UInt8] {
        CBOR.map([
            CBORMapEntry("version", "1.0"),
            CBORMapEntry(
                "documents",
                .array([
                    .map([CBORMapEntry("docType", .text(docType)), CBORMapEntry("issuerSigned", issuerSigned.cbor)])
                ])),
            CBORMapEntry("status", 0),
        ]).encoded()
    }

    private static func checkArguments(
        docType: String, nameSpaces: [(String, [(String, CBOR)])], documentSignerKey: PrivateKey,
        documentSignerChain: [Certificate], validFrom: Date, validUntil: Date
    ) throws(IssuerError) {
        guard !docType.isEmpty else { throw .invalidArgument("the doc type is empty") }
        guard !nameSpaces.isEmpty, nameSpaces.allSatisfy({ !$0.1.isEmpty }) else {
            throw .invalidArgument("every namespace needs at least one element, and there must be one namespace")
        }
        var seenNameSpaces: Set<String> = []
        for (name, elements) in nameSpaces {
            guard seenNameSpaces.insert(name).inserted else {
                throw .invalidArgument("namespace \(name) is given twice")
            }
            var seen: Set<String> = []
            for (identifier, _) in elements where !seen.insert(identifier).inserted {
                throw .invalidArgument("element \(identifier) is given twice in namespace \(name)")
            }
        }
        guard let signer = documentSignerChain.first else {
            throw .invalidArgument("the document signer chain is empty")
        }
        guard (try? signer.publicKey) == documentSignerKey.publicKey else {
            throw .invalidArgument("the document signer key does not belong to \(signer.subject)")
        }
        guard validFrom < validUntil else { throw .invalidArgument("validFrom must be earlier than validUntil") }
    }

    private static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}

extension DigestAlgorithm {
    /// The MSO digestAlgorithm name ("SHA-256", ...).
    var msoName: String {
        switch self {
        case .sha256: return "SHA-256"
        case .sha384: return "SHA-384"
        case .sha512: return "SHA-512"
        }
    }
}

/// A random number generator over OpenSSL's `RAND_bytes` (for shuffling digest IDs).
struct SecureRandomGenerator: RandomNumberGenerator {
    mutating func next() -> UInt64 {
        SecureRandom.bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
