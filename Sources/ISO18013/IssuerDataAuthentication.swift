import CBOR
import COSE
import FoundationEssentials
import MdocCrypto

/// The outcome of issuer data authentication (9.3.1) for one document.
public struct IssuerAuthenticationResult: Sendable {
    /// One issuer-signed element and whether its digest matched the MSO.
    public struct ElementCheck: Sendable, Equatable {
        public var nameSpace: String
        public var identifier: String
        public var digestMatches: Bool
    }

    public var documentSigner: Certificate?
    public var trustAnchor: Certificate?
    public var mso: MobileSecurityObject?
    public var elements: [ElementCheck] = []
    /// Each reason the document is not authentic; empty when it is.
    public var failures: [String] = []

    public var isValid: Bool { failures.isEmpty }
}

/// ISO 18013-5 9.3.1 issuer data authentication.
public enum IssuerDataAuthentication {
    /// Extended key usage of document signer certificates.
    public static let documentSignerEKU = "1.0.18013.5.1.2"

    /// Checks the MSO signature with the document signer certificate, the certificate chain
    /// to `trustAnchors` (IACA roots) at `time`, the document signer EKU, the docType, the
    /// validity window at `time`, and every element's digest.
    public static func verify(
        _ issuerSigned: IssuerSigned, docType: String, trustAnchors: [Certificate], at time: Date
    ) -> IssuerAuthenticationResult {
        var result = IssuerAuthenticationResult()
        let auth = issuerSigned.issuerAuth
        // Signature by the document signer.
        guard let ders = auth.x5chain, !ders.isEmpty else {
            result.failures.append("issuerAuth carries no document signer certificate (x5chain)")
            return result
        }
        let chain: [Certificate]
        do {
            chain = try ders.map { (der) throws(CryptoError) in try Certificate.cached(der: der) }
        } catch {
            result.failures.append("document signer certificate does not parse: \(error)")
            return result
        }
        result.documentSigner = chain[0]
        do {
            // issuerAuth is the one COSE_Sign1 whose payload travels (MobileSecurityObjectBytes).
            if try !auth.isValidAttachedSignature(key: chain[0].publicKey) {
                result.failures.append("issuerAuth signature does not verify with the document signer key")
            }
        } catch {
            result.failures.append("issuerAuth cannot be checked: \(error)")
        }
        // Chain to an IACA root, and the document signer profile.
        let validation = CertificateChainValidator.validate(chain: chain, anchors: trustAnchors, at: time)
        if validation.isValid {
            result.trustAnchor = validation.trustAnchor
        } else {
            result.failures.append(
                "document signer is not trusted: \(validation.failure ?? "no configured IACA certificate")")
        }
        if !chain[0].extendedKeyUsage.contains(documentSignerEKU) {
            result.failures.append("document signer certificate lacks the EKU \(documentSignerEKU)")
        }
        // The MSO itself.
        let mso: MobileSecurityObject
        do {
            mso = try issuerSigned.mobileSecurityObject().mso
        } catch {
            result.failures.append("MobileSecurityObject: \(error)")
            return result
        }
        result.mso = mso
        if mso.docType != docType {
            result.failures.append("MSO docType \(mso.docType) does not match the document's docType \(docType)")
        }
        let v = mso.validityInfo
        if time < v.validFrom {
            result.failures.append("MSO is not valid yet (validFrom \(RFC3339.string(from: v.validFrom)))")
        }
        if time > v.validUntil {
            result.failures.append("MSO has expired (validUntil \(RFC3339.string(from: v.validUntil)))")
        }
        guard let algorithm = mso.digest else {
            result.failures.append("unsupported digest algorithm \(mso.digestAlgorithm)")
            return result
        }
        // Every element's digest, over IssuerSignedItemBytes as issued (tag 24 included).
        for ns in issuerSigned.nameSpaces {
            for item in ns.items {
                let expected = mso.valueDigests[ns.name]?[item.digestID]
                let matches = expected == Digest.hash(item.bytes.taggedEncoding, algorithm: algorithm)
                result.elements.append(
                    .init(nameSpace: ns.name, identifier: item.elementIdentifier, digestMatches: matches))
                if !matches {
                    result.failures.append(
                        expected == nil
                            ? "\(ns.name):\(item.elementIdentifier) has no digest in the MSO"
                            : "\(ns.name):\(item.elementIdentifier) does not match its digest in the MSO")
                }
            }
        }
        return result
    }
}

extension DeviceAuthentication {
    /// Checks a document's deviceSigned (9.1.3): the signature with the MSO device key, or
    /// the MAC with `eMacKey` (which the reader derives from its EReaderKey and the device
    /// key), both over the DeviceAuthenticationBytes computed here for `transcript`; one that
    /// arrived with its payload attached is refused. Returns nil when authentic, or the reason.
    public static func verify(
        _ deviceSigned: DeviceSigned, docType: String, transcript: SessionTranscript, deviceKey: COSEKey,
        eMacKey: SecretBytes?
    ) -> String? {
        let payload = bytes(transcript: transcript, docType: docType, nameSpacesBytes: deviceSigned.nameSpacesBytes)
        switch deviceSigned.deviceAuth {
        case .signature(let sig):
            do {
                return try sig.isValidDetachedSignature(over: payload, key: deviceKey.publicKey())
                    ? nil : "deviceSignature does not verify with the MSO device key"
            } catch {
                return "deviceSignature cannot be checked: \(error)"
            }
        case .mac(let mac):
            guard let eMacKey else { return "deviceMac needs the reader's ephemeral key to check" }
            do {
                return try mac.isValidDetachedTag(over: payload, key: eMacKey) ? nil : "deviceMac does not verify"
            } catch {
                return "deviceMac cannot be checked: \(error)"
            }
        }
    }
}
