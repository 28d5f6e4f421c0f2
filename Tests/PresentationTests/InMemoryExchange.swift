import CBOR
import COSE
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import TestSupport

/// The holder and reader engines wired back to back in memory, the way a transport would.
struct InMemoryExchange {
    var holder: HolderSession
    var reader: ReaderSession
    var consentRequests: [ConsentRequest] = []
    var records: [PresentationRecord] = []
    var terminations: [TerminationReason] = []
    /// Bytes the holder sent, in order.
    var sent: [[UInt8]] = []
    let time: Date

    init(
        credentials: [PresentableCredential], configuration: HolderConfiguration = HolderConfiguration(),
        iacas: [Certificate], identity: ReaderIdentity? = nil, time: Date, curve: Curve = .p256,
        engagementVersion: EngagementVersion = .firstEdition
    ) throws {
        let eDeviceKey = try PrivateKey.generate(curve)
        let engagement = DeviceEngagement(
            eDeviceKey: eDeviceKey.publicKey,
            retrievalMethods: [.ble(version: 1, BleOptions(peripheralServerMode: true, centralClientMode: false))],
            version: engagementVersion)
        holder = HolderSession(
            engagement: engagement, eDeviceKey: eDeviceKey, credentials: credentials, configuration: configuration,
            now: time)
        // The reader only sees what the QR code carries.
        reader = try ReaderSession(
            engagement: DeviceEngagement(uri: engagement.uri), trustAnchors: iacas, identity: identity)
        self.time = time
    }

    /// Feeds a message to the holder, answering a consent prompt with `decide`; returns the
    /// holder's outgoing messages.
    mutating func deliver(_ message: [UInt8], decide: (ConsentRequest) -> ConsentDecision?) -> [[UInt8]] {
        var outputs = holder.receive(message, at: time)
        var out: [[UInt8]] = []
        var i = 0
        while i < outputs.count {
            switch outputs[i] {
            case .send(let bytes):
                out.append(bytes)
                sent.append(bytes)
            case .consentNeeded(let request):
                consentRequests.append(request)
                if let decision = decide(request) { outputs += holder.consent(decision, at: time) }
            case .responded(let r): records += r
            case .terminated(let reason): terminations.append(reason)
            case .requestReceived: break
            }
            i += 1
        }
        return out
    }

    /// One full request/response; returns the reader's event for the last holder message.
    mutating func request(
        _ items: [ItemsRequest], first: Bool = true, decide: (ConsentRequest) -> ConsentDecision? = { .approveAll($0) }
    ) throws -> ReaderEvent? {
        let message = first ? try reader.establishment(requesting: items) : try reader.request(items)
        let replies = deliver(message, decide: decide)
        var last: ReaderEvent?
        for r in replies { last = try reader.receive(r, at: time) }
        return last
    }
}

/// The Annex D credential (its device key is in the vectors), verified at a time when its
/// certificates were valid.
enum AnnexDCredential {
    static let time = RFC3339.date(from: "2021-06-01T00:00:00Z")!
    static let iaca = try! Certificate(der: Vectors.annexD("IACA_certificate"))
    static let mDL = "org.iso.18013.5.1.mDL"
    static let ns = "org.iso.18013.5.1"

    static func credential() throws -> PresentableCredential {
        let issuerSigned = try IssuerSigned(bytes: Vectors.annexD("IssuerSigned"))
        let key = try PrivateKey(curve: .p256, rawPrivateKey: Vectors.annexD("SDeviceKey_private_d"))
        return PresentableCredential(id: "annex-d", docType: mDL, issuerSigned: issuerSigned, deviceKey: key)
    }

    static func request(_ elements: [String], docType: String = mDL, retain: Bool = false) -> ItemsRequest {
        ItemsRequest(docType: docType, nameSpaces: [.init(ns, elements.map { .init($0, intentToRetain: retain) })])
    }
}

extension ReaderEvent {
    var verified: VerifiedResponse? {
        if case .response(let r, _, _) = self { return r }
        return nil
    }
}
