import BLETransport
import Consent
import ISO18013
import MdocCrypto
import Testing

@testable import HolderService
@testable import Presentation
@testable import Proximity

/// The reason the Ended signal gives for how a proximity session went.
struct SessionEndReasonTests {
    static let requester = Requester(displayName: "Reader", authentication: .unauthenticated)

    static func result(
        responses: Int, records: [PresentationRecord.Outcome], holderEnd: TerminationReason? = nil,
        transportEnd: BLESessionEndReason? = nil
    ) throws -> ProximitySessionResult {
        let engagement = DeviceEngagement(eDeviceKey: try PrivateKey.generate(.p256).publicKey, retrievalMethods: [])
        var result = ProximitySessionResult(
            engagement: engagement, transportEnd: transportEnd, holderEnd: holderEnd, responsesSent: responses,
            records: [])
        result.records = records.map {
            PresentationRecord(requester: requester, docType: "org.iso.18013.5.1.mDL", elementsSent: [], outcome: $0)
        }
        return result
    }

    @Test func aResponseWithDataIsCompletedAndWithoutDataDeclined() throws {
        #expect(
            SessionEndReason.proximity(
                try Self.result(responses: 1, records: [.sent], transportEnd: .disconnectedAfterResponse))
                == "completed")
        #expect(
            SessionEndReason.proximity(try Self.result(responses: 1, records: [.declined], holderEnd: .readerEnded))
                == "declined")
        #expect(
            SessionEndReason.proximity(
                try Self.result(responses: 1, records: [.notReturned(reason: "reader refused")]))
                == "declined")
        #expect(
            SessionEndReason.proximity(try Self.result(responses: 1, records: [.sent], transportEnd: .disconnected))
                == "disconnected")
    }

    @Test func withoutAResponseTheEndSaysWhy() throws {
        #expect(
            SessionEndReason.proximity(try Self.result(responses: 0, records: [], holderEnd: .idleTimeout)) == "timeout"
        )
        #expect(
            SessionEndReason.proximity(try Self.result(responses: 0, records: [], holderEnd: .consentTimeout))
                == "timeout")
        #expect(
            SessionEndReason.proximity(try Self.result(responses: 0, records: [], transportEnd: .peerEnded))
                == "reader-ended")
        #expect(
            SessionEndReason.proximity(try Self.result(responses: 0, records: [], transportEnd: .disconnected))
                == "disconnected")
        #expect(
            SessionEndReason.proximity(try Self.result(responses: 0, records: [], holderEnd: .sessionEncryptionError))
                .hasPrefix("error: "))
    }
}

extension SessionEndReasonTests {
    @Test func aSessionCutByATransportTimeoutEndsWithTimeout() throws {
        var stalled = try Self.result(
            responses: 1, records: [.sent], holderEnd: .transportClosed, transportEnd: .disconnected)
        stalled.timedOut = .drain
        #expect(SessionEndReason.proximity(stalled) == "timeout")
        var silent = try Self.result(responses: 0, records: [], holderEnd: .holderEnded, transportEnd: .localEnded)
        silent.timedOut = .firstRequest
        #expect(SessionEndReason.proximity(silent) == "timeout")
    }

    @Test func aBLEProtocolErrorIsNamedNotCalledADisconnect() throws {
        let reason = SessionEndReason.proximity(
            try Self.result(
                responses: 0, records: [], holderEnd: .transportClosed,
                transportEnd: .protocolError(.messageTooLarge(size: 300_000, limit: 262_144))))
        #expect(reason.hasPrefix("error: BLE protocol error: a message of at least 300000 bytes"))
    }
}
