import BLETransport
import Foundation
import ISO18013
import Presentation
import ProximityReader

/// What a case runs with: the holder's fresh engagement, the run's settings, the way to
/// reach the holder (``ProximityReader``: the shared BLE stack's reader side) and the log
/// of its evidence.
public struct CaseContext: Sendable {
    public let engagement: DeviceEngagement
    /// The `mdoc:` URI as the holder showed it (trimmed); empty when the engagement came otherwise.
    public let uri: String
    public let settings: ConformanceSettings
    public let reader: ProximityReader
    public let evidence: EvidenceLog

    public init(
        engagement: DeviceEngagement, uri: String = "", settings: ConformanceSettings, reader: ProximityReader,
        evidence: EvidenceLog
    ) {
        self.engagement = engagement
        self.uri = uri
        self.settings = settings
        self.reader = reader
        self.evidence = evidence
    }

    /// The BLE mode for this engagement and the run's `--mode`; skips when none fits.
    public func bleMode() throws(CaseStop) -> ReaderBLEMode {
        guard let options = engagement.bleOptions else { throw .skip("the engagement offers no BLE retrieval") }
        do {
            return try ReaderBLEMode(choosing: settings.mode, from: options)
        } catch {
            throw .skip("\(error)")
        }
    }

    /// A reader session for this engagement (`identity` signs each DocRequest).
    public func session(identity: ReaderIdentity? = nil) throws(CaseStop) -> ReaderSession {
        do {
            return try ReaderSession(
                engagement: engagement, trustAnchors: settings.trustAnchors, identity: identity)
        } catch {
            throw .skip("cannot start a session with this engagement: \(error)")
        }
    }

    /// Reaches the holder and starts the BLE session (State 0x01 written or seen).
    public func connect() async throws(CaseStop) -> ReaderConnection {
        let mode = try bleMode()
        do {
            let connection = try await reader.connect(mode, engagement: engagement)
            evidence.note(
                "connected in \(mode.name) mode" + (connection.overL2CAP ? " over L2CAP" : "")
                    + (connection.mtu.map { ", ATT MTU \($0)" } ?? ""))
            return connection
        } catch {
            evidence.note("connecting failed: \(error)")
            throw .fail("could not reach the holder: \(error)")
        }
    }

    /// Sends `message` (noted as `label`) and reads the holder's answer.
    public func exchange(
        _ message: [UInt8], _ label: String, on connection: ReaderConnection, session: inout ReaderSession
    ) async throws(CaseStop) -> HolderAnswer {
        evidence.note("sent \(label)", bytes: message)
        do {
            try await connection.send(message)
        } catch {
            throw .fail("sending \(label) failed: \(error)")
        }
        return await answer(on: connection, session: &session, within: settings.answerTimeout)
    }

    /// The holder's next message (or end, or silence within `bound`), read with `session`.
    public func answer(on connection: ReaderConnection, session: inout ReaderSession, within bound: Duration) async
        -> HolderAnswer
    {
        let answer: HolderAnswer
        do {
            switch try await connection.receive(timeout: bound) {
            case .message(let message):
                evidence.note("received a message", bytes: message)
                answer = Self.read(message, session: &session)
            case .holderEnded(let byState):
                answer = .ended(byState: byState)
            }
        } catch .noResponse(let seconds) {
            answer = .silent(seconds: seconds)
        } catch {
            answer = .transportError("\(error)")
        }
        evidence.note("holder: \(answer)")
        return answer
    }

    /// Ends the session as a reader does (SessionData status 20, then the transport's end).
    public func end(_ connection: ReaderConnection, session: ReaderSession) async {
        await connection.close(sending: session.termination())
        evidence.note("sent SessionData status 20 and ended the session")
    }

    static func read(_ message: [UInt8], session: inout ReaderSession) -> HolderAnswer {
        let data: SessionData
        do {
            data = try SessionData(bytes: message)
        } catch {
            return .unreadable("not SessionData: \(error)")
        }
        guard let ciphertext = data.data else { return .status(data.status ?? 0) }
        let plaintext: [UInt8]
        do {
            plaintext = try session.decrypt(ciphertext)
        } catch {
            return .unreadable("the data does not decrypt: \(error)")
        }
        do {
            let response = try DeviceResponse(bytes: plaintext)
            return .response(ResponseSummary(response), plaintext: plaintext, sessionStatus: data.status)
        } catch {
            return .unreadable("the data is not a DeviceResponse: \(error)")
        }
    }
}

extension ReaderBLEMode {
    /// The mode's name in the standard's words.
    public var name: String {
        switch self {
        case .peripheralServer: return "mdoc peripheral-server"
        case .centralClient: return "mdoc central-client"
        }
    }
}
