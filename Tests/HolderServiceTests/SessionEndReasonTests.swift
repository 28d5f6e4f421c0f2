import BLETransport
import Consent
import HolderRuntime
import ISO18013
import MdocCrypto
import Testing

@testable import HolderService
@testable import Presentation
@testable import Proximity

/// The reason the Ended signal gives for how a proximity session went (the one classification
/// of HolderRuntime, rendered).
struct SessionEndReasonTests {
    static let requester = Requester(displayName: "Reader", authentication: .unauthenticated)

    /// The Ended reason of a session with `result`.
    static func reason(_ result: ProximitySessionResult) -> String { ProximityOutcome.classify(result).reason }

    static func result(
        responses: Int, records: [PresentationRecord.Outcome], holderEnd: TerminationReason? = nil,
        transportEnd: BLESessionEndReason? = nil
    ) throws -> ProximitySessionResult {
        let engagement = DeviceEngagement(eDeviceKey: try PrivateKey.generate(.p256).publicKey, retrievalMethods: [])
        var result = ProximitySessionResult(
            engagement: engagement, transportEnd: transportEnd, holderEnd: holderEnd, responsesSent: responses,
            records: [])
        // A document sent carries an element; one declined or not returned none.
        result.records = records.map {
            PresentationRecord(
                requester: requester, docType: "org.iso.18013.5.1.mDL",
                elementsSent: $0 == .sent ? [ElementID("org.iso.18013.5.1", "age_over_18")] : [], outcome: $0)
        }
        return result
    }

    @Test func aResponseWithDataIsCompletedAndWithoutDataDeclined() throws {
        #expect(
            Self.reason(
                try Self.result(responses: 1, records: [.sent], transportEnd: .disconnectedAfterResponse))
                == "completed")
        #expect(
            Self.reason(try Self.result(responses: 1, records: [.declined], holderEnd: .readerEnded))
                == "declined")
        #expect(
            Self.reason(
                try Self.result(responses: 1, records: [.notReturned(reason: "reader refused")]))
                == "declined")
        #expect(
            Self.reason(try Self.result(responses: 1, records: [.sent], transportEnd: .disconnected))
                == "disconnected")
    }

    @Test func withoutAResponseTheEndSaysWhy() throws {
        #expect(
            Self.reason(try Self.result(responses: 0, records: [], holderEnd: .idleTimeout)) == "timeout"
        )
        #expect(
            Self.reason(try Self.result(responses: 0, records: [], holderEnd: .consentTimeout))
                == "timeout")
        #expect(
            Self.reason(try Self.result(responses: 0, records: [], transportEnd: .peerEnded))
                == "reader-ended")
        #expect(
            Self.reason(try Self.result(responses: 0, records: [], transportEnd: .disconnected))
                == "disconnected")
        #expect(
            Self.reason(try Self.result(responses: 0, records: [], holderEnd: .sessionEncryptionError))
                .hasPrefix("error: "))
    }
}

extension SessionEndReasonTests {
    @Test func aSessionCutByATransportTimeoutEndsWithTimeout() throws {
        var stalled = try Self.result(
            responses: 1, records: [.sent], holderEnd: .transportClosed, transportEnd: .disconnected)
        stalled.timedOut = .drain
        #expect(Self.reason(stalled) == "timeout")
        var silent = try Self.result(responses: 0, records: [], holderEnd: .holderEnded, transportEnd: .localEnded)
        silent.timedOut = .firstRequest
        #expect(Self.reason(silent) == "timeout")
    }

    @Test func aBLEProtocolErrorIsNamedNotCalledADisconnect() throws {
        let reason = Self.reason(
            try Self.result(
                responses: 0, records: [], holderEnd: .transportClosed,
                transportEnd: .protocolError(.messageTooLarge(size: 300_000, limit: 262_144))))
        #expect(reason.hasPrefix("error: BLE protocol error: a message of at least 300000 bytes"))
    }
}
