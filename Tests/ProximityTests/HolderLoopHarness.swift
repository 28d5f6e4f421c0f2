import BLETestSupport
import BLETransport
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import Testing

@testable import Proximity

/// Plays the world around a ``HolderLoop``: a reader engine making real messages, a clock
/// that moves only when told, and every action the loop asked for, in order.
struct HolderLoopHarness {
    var loop: HolderLoop
    var reader: ReaderSession
    var now: HolderLoop.Moment
    private(set) var actions: [HolderLoop.Action] = []

    static let request = ItemsRequest(
        docType: TestMDL.docType,
        nameSpaces: [.init(TestMDL.nameSpace, [.init("family_name"), .init("age_over_18")])])

    init(
        _ setup: TestMDL, timeouts: ProximityTimeouts = ProximityTimeouts(),
        configure: (inout HolderConfiguration) -> Void = { _ in }
    ) throws {
        let key = try PrivateKey.generate(.p256)
        let engagement = DeviceEngagement(
            eDeviceKey: key.publicKey,
            retrievalMethods: [
                .ble(
                    version: 1,
                    BleOptions(
                        peripheralServerMode: true, centralClientMode: false,
                        peripheralServerUUID: SecureRandom.bytes(16)))
            ])
        var configuration = HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA])
        configure(&configuration)
        now = HolderLoop.Moment(instant: .now, date: Date())
        let holder = HolderSession(
            engagement: engagement, eDeviceKey: key, credentials: [setup.credential], configuration: configuration,
            now: now.date)
        loop = HolderLoop(holder: holder, timeouts: timeouts, modes: [.peripheralServer])
        reader = try ReaderSession(
            engagement: engagement, trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
    }

    /// Feeds `input` once the clock moved on by `after`; returns the loop's actions, named.
    @discardableResult
    mutating func feed(_ input: HolderLoop.Input, after: Duration = .zero) -> [String] {
        now.instant += after
        now.date += after.seconds
        let new = loop.handle(input, at: now)
        actions += new
        return new.map(Self.name)
    }

    /// A reader at our GATT service that started the session on channel 1.
    mutating func gattReaderStarted() {
        #expect(feed(.advertising) == ["report advertising"])
        #expect(feed(.readerArrived(.peripheralServer)).isEmpty)
        #expect(feed(.channelOpened(overL2CAP: false)).isEmpty)
        #expect(feed(.started(generation: loop.generation)) == ["report readerConnected"])
    }

    /// The reader's SessionEstablishment on the channel in use; the loop asks for consent.
    mutating func readerRequests() throws -> ConsentRequest {
        let message = try reader.establishment(requesting: [Self.request])
        let names = feed(.channel(.message(message), generation: loop.generation))
        #expect(names.suffix(2) == ["report requestReceived", "askConsent"])
        guard case .askConsent(let request)? = actions.last else { throw HarnessFailure.noConsentAsked }
        return request
    }

    /// The reader's message on the channel in use.
    @discardableResult
    mutating func readerSends(_ message: [UInt8], after: Duration = .zero) -> [String] {
        feed(.channel(.message(message), generation: loop.generation), after: after)
    }

    /// What the loop sent, in order.
    var sent: [[UInt8]] {
        actions.compactMap {
            if case .send(let bytes) = $0 { return bytes }
            return nil
        }
    }

    enum HarnessFailure: Error {
        case noConsentAsked
    }

    static func name(_ action: HolderLoop.Action) -> String {
        switch action {
        case .send: "send"
        case .close: "close"
        case .drop: "drop"
        case .acceptL2CAP: "acceptL2CAP"
        case .refuseL2CAP: "refuseL2CAP"
        case .askConsent: "askConsent"
        case .report(let event):
            switch event {
            case .advertising: "report advertising"
            case .readerConnected: "report readerConnected"
            case .requestReceived: "report requestReceived"
            case .responded: "report responded"
            }
        }
    }
}

extension Duration {
    fileprivate var seconds: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
