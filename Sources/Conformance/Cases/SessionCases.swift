import Foundation
import ISO18013
import Presentation
import ProximityReader

/// The well-formed session and its end: a correct request is answered (the baseline the
/// refusal cases are read against), and SessionData status 20 ends the session.
enum SessionCases {
    static let all = [baseline, replayedRequest, termination, l2cap]

    /// A well-formed request answered; the session left open for the case to go on.
    struct Answered {
        var connection: ReaderConnection
        var session: ReaderSession
        var summary: ResponseSummary
        var plaintext: [UInt8]
        /// The SessionEstablishment as sent.
        var establishment: [UInt8]
    }

    /// Sends the well-formed request (signed with the run's identity when given) and
    /// requires a DeviceResponse with status 0 (and, with an identity, released elements).
    static func answered(_ context: CaseContext) async throws(CaseStop) -> Answered {
        var session = try context.session(identity: context.settings.identity)
        let message: [UInt8]
        do {
            message = try session.establishment(requesting: [context.settings.request])
        } catch {
            throw .skip("cannot build the request: \(error)")
        }
        let connection = try await context.connect()
        let answer = try await context.exchange(message, "SessionEstablishment", on: connection, session: &session)
        guard case .response(let summary, let plaintext, _) = answer else {
            await connection.close(sending: nil)
            throw .fail("expected a DeviceResponse, got \(answer)")
        }
        guard summary.status == 0 else {
            await context.end(connection, session: session)
            throw .fail("DeviceResponse status \(summary.status) for a well-formed request")
        }
        if context.settings.identity != nil, summary.releasedElements.isEmpty {
            await context.end(connection, session: session)
            throw .fail("a trusted reader got no data (\(summary)); was the request approved on the holder?")
        }
        return Answered(
            connection: connection, session: session, summary: summary, plaintext: plaintext, establishment: message)
    }

    static let baseline = ConformanceCase(
        id: "BLE_Session_01",
        title: "a well-formed request (reader-authenticated with --reader-key) over BLE",
        expectation:
            "SessionData with a DeviceResponse, status 0, the approved elements, every document verifying "
            + "against the IACA roots (--trust-anchor); the session then ends on our status 20",
        reference: "ISO/IEC 18013-5 8.3.3.1 (BLE), 9.1.1 (session), 9.3 (mdoc authentication)", needsConsent: true
    ) { context throws(CaseStop) in
        let answered = try await answered(context)
        var reason = "\(answered.summary)"
        if !context.settings.trustAnchors.isEmpty {
            let verified: VerifiedResponse
            do {
                verified = try ResponseVerifier.verify(
                    answered.plaintext, transcript: answered.session.transcript,
                    trustAnchors: context.settings.trustAnchors, eReaderKey: answered.session.eReaderKey, at: Date())
            } catch {
                await context.end(answered.connection, session: answered.session)
                throw .fail("the DeviceResponse does not verify: \(error)")
            }
            guard verified.isValid else {
                await context.end(answered.connection, session: answered.session)
                throw .fail("a document does not verify: \(verified.documents.filter { !$0.isValid }.map(\.docType))")
            }
            reason += ", verified"
        }
        await context.end(answered.connection, session: answered.session)
        return reason
    }

    static let replayedRequest = ConformanceCase(
        id: "BLE_Session_02",
        title: "after the response, the request's ciphertext again in SessionData (reader counter 1 reused)",
        expectation: "no DeviceResponse: the holder expects reader counter 2, so the message does not decrypt "
            + "(SessionData status 10, or the session ends)",
        reference: "ISO/IEC 18013-5 9.1.1.5 (the IV holds the message counter), 9.1.1.4 (status 10)",
        needsConsent: true
    ) { context throws(CaseStop) in
        var answered = try await answered(context)
        let connection = answered.connection
        let ciphertext: [UInt8]
        do {
            ciphertext = try SessionEstablishment(bytes: answered.establishment).data
        } catch {
            await context.end(connection, session: answered.session)
            throw .skip("cannot read back our own SessionEstablishment: \(error)")
        }
        let replay = SessionData(data: ciphertext).encoded
        let after = try await context.exchange(
            replay, "SessionData replaying the first request's ciphertext", on: connection, session: &answered.session)
        await connection.close(sending: nil)
        switch after {
        case .response(let summary, _, _):
            throw .fail("the holder answered a request encrypted with a used counter: \(summary)")
        case .status(let status) where status != SessionStatus.sessionEncryptionError.rawValue:
            throw .fail("status \(status) for a message that does not decrypt (expected 10)")
        case .unreadable(let why):
            throw .fail("the holder's answer is unreadable: \(why)")
        case .silent:
            throw .fail("no answer (\(after)): a message that does not decrypt gets status 10")
        default:
            return "no DeviceResponse: \(after)"
        }
    }

    static let termination = ConformanceCase(
        id: "BLE_Term_01",
        title: "SessionData status 20 after the response, then a further request",
        expectation:
            "the holder ends the session: nothing sent after status 20 is answered (State 0x02 or a disconnect "
            + "may follow)",
        reference: "ISO/IEC 18013-5 9.1.1.4 (status 20: session termination), 8.3.3.1.1.5 (State 0x02)",
        needsConsent: true
    ) { context throws(CaseStop) in
        var answered = try await answered(context)
        let connection = answered.connection
        context.evidence.note("sent SessionData status 20 (link kept open)", bytes: answered.session.termination())
        try? await connection.send(answered.session.termination())
        let after = await context.answer(on: connection, session: &answered.session, within: context.settings.endGrace)
        guard after.linkOpen else {
            await connection.close(sending: nil)
            return "the session ended after status 20: \(after)"
        }
        guard case .silent = after else {
            await connection.close(sending: nil)
            throw .fail("the holder sent \(after) after status 20")
        }
        let outcome: Result<String, CaseStop>
        do throws(CaseStop) {
            outcome = .success(try await requestAfterEnd(context, &answered))
        } catch {
            outcome = .failure(error)
        }
        await connection.close(sending: nil)
        return try outcome.get()
    }

    /// BLE_Term_01 with the link still open after status 20: a further request must find the
    /// session over (the link closing, or no answer).
    static func requestAfterEnd(_ context: CaseContext, _ answered: inout Answered) async throws(CaseStop) -> String {
        let connection = answered.connection
        guard let more = try? answered.session.request([context.settings.request]) else {
            return "no answer within \(context.settings.endGrace) of status 20"
        }
        context.evidence.note("sent a further request after status 20", bytes: more)
        do {
            try await connection.send(more)
        } catch {
            return "the link was gone when a request followed status 20 (\(error))"
        }
        let late = await context.answer(on: connection, session: &answered.session, within: context.settings.endGrace)
        switch late {
        case .ended, .transportError:
            return "the session was over: a request after status 20 met \(late)"
        case .silent:
            return "no answer to a request sent after status 20"
        case .response(let summary, _, _):
            throw .fail("the holder answered a request sent after status 20: \(summary)")
        default:
            throw .fail("the holder sent \(late) after status 20")
        }
    }

    static let l2cap = ConformanceCase(
        id: "BLE_L2CAP_01",
        title: "the request and response over the holder's L2CAP channel (--l2cap)",
        expectation: "messages framed with a 4-byte big-endian length on the PSM of BleOptions key 21 or the PSM "
            + "characteristic; a DeviceResponse with status 0",
        reference: "ISO/IEC 18013-5 (2nd edition drafts) 8.3.3.1.1.9 (L2CAP), BleOptions key 21", needsConsent: true
    ) { context throws(CaseStop) in
        guard case .peripheralServer = try context.bleMode() else {
            throw .skip("the holder's L2CAP channel is tested in mdoc peripheral-server mode")
        }
        guard context.settings.l2cap else { throw .skip("run with --l2cap to test the L2CAP channel") }
        guard context.engagement.bleOptions?.l2capPSM != nil else {
            throw .skip("the engagement offers no L2CAP PSM (key 21)")
        }
        let answered = try await answered(context)
        await context.end(answered.connection, session: answered.session)
        guard answered.connection.overL2CAP else { throw .fail("the PSM is offered but the channel did not open") }
        return "over L2CAP: \(answered.summary)"
    }
}
