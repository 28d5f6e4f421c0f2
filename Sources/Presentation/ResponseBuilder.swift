import COSE
import Consent
import ISO18013
import MdocCrypto
import SecureArea

/// Builds the DeviceResponse for a request and the user's decision: only approved elements,
/// issued bytes unchanged, element errors for what was requested and not returned,
/// documentErrors for documents not returned, deviceSigned per document.
struct ResponseBuilder {
    let transcript: SessionTranscript
    let eReaderKey: COSEKey?
    let deviceAuth: DeviceAuthMode

    func build(_ request: PendingRequest, decision: ConsentDecision) -> (DeviceResponse, [PresentationRecord]) {
        var drafts: [DraftDocument] = []
        var documentErrors: [(docType: String, code: Int)] = []
        var records: [PresentationRecord] = []
        for doc in request.docs {
            let docType = doc.docRequest.itemsRequest.docType
            func notReturned(_ outcome: PresentationRecord.Outcome) {
                documentErrors.append((docType, ErrorCode.dataNotReturned))
                records.append(
                    PresentationRecord(requester: doc.requester, docType: docType, elementsSent: [], outcome: outcome))
            }
            if let refusal = doc.refusal {
                notReturned(.notReturned(reason: refusal))
                continue
            }
            guard let credential = doc.credential else {
                notReturned(.notReturned(reason: "no credential of this doc type"))
                continue
            }
            // What may go out: the requested elements the credential holds and the
            // alternatives answering in place of missing ones.
            let offered = Set(doc.elements.filter(\.available).map(\.id))
            let approved = decision.approved(for: docType).intersection(offered)
            guard !approved.isEmpty else {
                notReturned(.declined)
                continue
            }
            let deviceSigned: DeviceSigned
            do {
                deviceSigned = try sign(credential: credential, docType: docType)
            } catch {
                switch error {
                case .key(let error):
                    // The key cannot be used now (TPM absent, PIN needed, KEK missing): the
                    // session answers status 10 (general error, no data).
                    let failure = DeviceKeyFailure(
                        credentialID: credential.id, docType: docType, location: credential.deviceKey.location,
                        error: error)
                    return unusableKeyResponse(request, failure: failure)
                case .protocol(let error):
                    notReturned(.notReturned(reason: "device authentication failed: \(error)"))
                    continue
                }
            }
            drafts.append(
                DraftDocument(
                    docType: docType, credential: credential,
                    requested: doc.elements.filter { $0.alternativeFor == nil }.map(\.id),
                    disclosed: approved, deviceSigned: deviceSigned, record: records.count))
            records.append(
                PresentationRecord(
                    requester: doc.requester, docType: docType, elementsSent: approved.sorted(), outcome: .sent,
                    credentialID: credential.id, useCase: doc.useCase?.summary))
        }
        return fitted(drafts, documentErrors: documentErrors, records: records, limit: request.maximumResponseSize)
    }

    /// deviceMac when asked for (or when the key cannot sign) and the reader key shares the
    /// device key's curve; deviceSignature otherwise.
    private func sign(credential: PresentableCredential, docType: String) throws(DeviceAuthFailure) -> DeviceSigned {
        let key = credential.deviceKey
        let canMac = key.curve.supportsKeyAgreement && eReaderKey?.curve == key.curve
        do {
            if canMac && (deviceAuth == .mac || !key.curve.supportsSigning) {
                let readerKey: PublicKey
                do {
                    readerKey = try eReaderKey!.publicKey()
                } catch {
                    throw DeviceAuthFailure.protocol(.cose(structure: "EReaderKey", error))
                }
                return try DeviceKeyAuthentication.mac(
                    transcript: transcript, docType: docType, key: key, readerKey: readerKey)
            }
            guard key.curve.supportsSigning, let algorithm = key.curve.preferredSignatureAlgorithm else {
                throw DeviceAuthFailure.protocol(
                    .invalid(
                        structure: "device key",
                        reason: "a \(key.curve.rawValue) key cannot sign and the reader key is on another curve"))
            }
            return try DeviceKeyAuthentication.sign(
                transcript: transcript, docType: docType, key: key, algorithm: algorithm)
        } catch let error as DeviceAuthFailure {
            throw error
        } catch let error as SecureAreaError {
            throw .key(error)
        } catch {
            throw .protocol(.invalid(structure: "device authentication", reason: "\(error)"))
        }
    }

    /// The answer when a device key cannot be used: DeviceResponse status 10 (general error, no
    /// data), every document recorded as not returned with the reason.
    private func unusableKeyResponse(_ request: PendingRequest, failure: DeviceKeyFailure) -> (
        DeviceResponse, [PresentationRecord]
    ) {
        let records = request.docs.map {
            PresentationRecord(
                requester: $0.requester, docType: $0.docRequest.itemsRequest.docType, elementsSent: [],
                outcome: .notReturned(reason: failure.description))
        }
        return (DeviceResponse(documents: [], status: .generalError), records)
    }
}

/// Why a document's device authentication failed.
enum DeviceAuthFailure: Error {
    /// The key cannot be used: the session ends.
    case key(SecureAreaError)
    /// This document cannot be authenticated (curves do not fit): it is left out.
    case `protocol`(ISO18013Error)
}

/// A device key that could not be used, for the log line and the history: names the
/// credential and the area, never key material.
public struct DeviceKeyFailure: Sendable, Equatable, CustomStringConvertible {
    public var credentialID: String
    public var docType: String
    public var location: String
    public var error: SecureAreaError

    public var description: String {
        "the device key of credential \(credentialID) (\(docType)), \(location), cannot be used: \(error)"
    }
}
