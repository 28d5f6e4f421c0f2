import CBOR
import COSE
import Consent
import FoundationEssentials
import ISO18013
import MdocCrypto

/// One element of a verified document.
public struct VerifiedElement: Sendable {
    public var id: ElementID
    public var value: CBOR
    /// The element's IssuerSignedItemBytes match their digest in the MSO.
    public var digestMatches: Bool
}

/// One document of a DeviceResponse, fully checked.
public struct VerifiedDocument: Sendable {
    public var docType: String
    public var issuer: IssuerAuthenticationResult
    /// nil when deviceSignature / deviceMac verified; otherwise why not.
    public var deviceAuthFailure: String?
    public var deviceAuthKind: String
    public var elements: [VerifiedElement]
    /// Requested elements the holder did not return, with their error code.
    public var notReturned: [(id: ElementID, code: Int)]

    public var isValid: Bool { issuer.isValid && deviceAuthFailure == nil }

    /// Every reason the document is not authentic.
    public var failures: [String] { issuer.failures + (deviceAuthFailure.map { [$0] } ?? []) }
}

/// A DeviceResponse with every document verified.
public struct VerifiedResponse: Sendable {
    public var status: UInt64
    public var documents: [VerifiedDocument]
    public var documentErrors: [(docType: String, code: Int)]

    /// Status OK and every document authentic.
    public var isValid: Bool { status == 0 && documents.allSatisfy(\.isValid) }
}

/// The reader's verification of a DeviceResponse (ISO 18013-5 9.3): issuer data
/// authentication to the IACA roots, every digest, validity and docType, and mdoc
/// authentication (signature with the MSO device key, or MAC with EMacKey).
public enum ResponseVerifier {
    /// - Parameters:
    ///   - eReaderKey: the reader's ephemeral private key; needed to check deviceMac.
    public static func verify(
        _ bytes: [UInt8], transcript: SessionTranscript, trustAnchors: [Certificate], eReaderKey: PrivateKey?,
        at time: Date = Date()
    ) throws(ISO18013Error) -> VerifiedResponse {
        try verify(
            bytes, transcript: transcript, issuerTrust: IssuerTrust(anchors: trustAnchors), eReaderKey: eReaderKey,
            at: time)
    }

    /// The same, with IACAs that may be scoped to docTypes (from a VICAL).
    public static func verify(
        _ bytes: [UInt8], transcript: SessionTranscript, issuerTrust: IssuerTrust, eReaderKey: PrivateKey?,
        at time: Date = Date()
    ) throws(ISO18013Error) -> VerifiedResponse {
        let response = try DeviceResponse(bytes: bytes)
        var documents: [VerifiedDocument] = []
        for doc in response.documents {
            let issuer = IssuerDataAuthentication.verify(
                doc.issuerSigned, docType: doc.docType, trust: issuerTrust, at: time)
            var deviceFailure: String?
            var kind = "deviceSignature"
            if case .mac = doc.deviceSigned.deviceAuth { kind = "deviceMac" }
            if let mso = issuer.mso {
                var eMacKey: SecretBytes?
                if kind == "deviceMac", let eReaderKey {
                    do {
                        eMacKey = try DeviceAuthentication.eMacKey(
                            privateKey: eReaderKey, peerKey: mso.deviceKey.publicKey(), transcript: transcript)
                    } catch {
                        deviceFailure = "cannot derive EMacKey: \(error)"
                    }
                }
                if deviceFailure == nil {
                    deviceFailure = DeviceAuthentication.verify(
                        doc.deviceSigned, docType: doc.docType, transcript: transcript, deviceKey: mso.deviceKey,
                        eMacKey: eMacKey)
                }
            } else {
                deviceFailure = "no MSO, so no device key to check device authentication"
            }
            let checks = Dictionary(
                issuer.elements.map { ("\($0.nameSpace)\u{0}\($0.identifier)", $0.digestMatches) },
                uniquingKeysWith: { a, b in a && b })
            let elements = doc.issuerSigned.nameSpaces.flatMap { ns in
                ns.items.map {
                    VerifiedElement(
                        id: ElementID(ns.name, $0.elementIdentifier), value: $0.elementValue,
                        digestMatches: checks["\(ns.name)\u{0}\($0.elementIdentifier)"] ?? false)
                }
            }
            documents.append(
                VerifiedDocument(
                    docType: doc.docType, issuer: issuer, deviceAuthFailure: deviceFailure, deviceAuthKind: kind,
                    elements: elements, notReturned: doc.errors.map { (ElementID($0.nameSpace, $0.element), $0.code) }))
        }
        return VerifiedResponse(status: response.status, documents: documents, documentErrors: response.documentErrors)
    }
}
