import ISO18013
import Presentation
import ProximityReader

/// What came back for a case's first message, and after it when the case watched on.
public struct FirstExchange: Sendable {
    public var answer: HolderAnswer
    /// The holder's next event within ``ConformanceSettings/endGrace`` (when watched).
    public var afterwards: HolderAnswer?
}

extension CaseContext {
    /// One session with a crafted first message: connects, sends what `craft` makes of a new
    /// session (signed by `identity` where it signs), reads the answer, optionally watches
    /// what follows, and ends the session as a reader does.
    public func firstMessage(
        _ label: String, identity: ReaderIdentity? = nil, watchAfterwards: Bool = false,
        craft: (inout ReaderSession) throws -> [UInt8]
    ) async throws(CaseStop) -> FirstExchange {
        var session = try session(identity: identity)
        let message: [UInt8]
        do {
            message = try craft(&session)
        } catch {
            throw .skip("cannot build \(label): \(error)")
        }
        let connection = try await connect()
        let answer = try await exchange(message, label, on: connection, session: &session)
        var afterwards: HolderAnswer?
        if watchAfterwards, answer.linkOpen {
            afterwards = await self.answer(on: connection, session: &session, within: settings.endGrace)
        }
        let over = !(afterwards ?? answer).linkOpen || answer.endedSession
        if over {
            await connection.close(sending: nil)
        } else {
            await end(connection, session: session)
        }
        return FirstExchange(answer: answer, afterwards: afterwards)
    }

    /// A well-formed DeviceRequest for ``ConformanceSettings/request`` (signed when the session has an identity).
    public func wellFormedRequest(_ session: ReaderSession) throws -> DeviceRequest {
        try session.deviceRequest([settings.request])
    }
}

extension HolderAnswer {
    /// The link may still carry messages after this answer.
    var linkOpen: Bool {
        switch self {
        case .ended, .transportError: return false
        default: return true
        }
    }

    /// The answer itself ended the session (a status of 10, 11 or 20).
    var endedSession: Bool {
        switch self {
        case .status(let status): return [10, 11, 20].contains(status)
        case .response(_, _, let status?): return status == 20
        default: return false
        }
    }
}
