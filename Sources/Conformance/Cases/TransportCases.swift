import BLETransport
import ISO18013
import Presentation
import ProximityReader

/// The BLE transport (18013-5 8.3.3.1.1): chunks both ways, and the Ident in central-client
/// mode. The chunk cases work below the message channel, in either mode (as GATT client or
/// server: ``RawGattExchange``).
enum TransportCases {
    static let all = [smallestChunks, holderChunks, badChunkHeader, readerStateEnd, disconnectMidResponse, wrongIdent]

    static let chunkReference =
        "ISO/IEC 18013-5 8.3.3.1.1.6 (data transfer: header 0x01 more / 0x00 last, "
        + "at most min(512, ATT MTU - 3) bytes per chunk)"

    /// The raw GATT path in the engagement's mode: in peripheral-server mode we are the GATT
    /// client of the holder's service; in central-client mode we serve the mdoc service with
    /// the engagement's Ident and the holder is the client.
    static func raw(_ context: CaseContext) throws(CaseStop) -> (RawGattExchange, BluetoothUUID) {
        switch try context.bleMode() {
        case .peripheralServer(let uuid):
            guard let client = context.reader.client else { throw .skip("no GATT client") }
            return (RawGattExchange(role: RawGattClientRole(client: client), evidence: context.evidence), uuid)
        case .centralClient(let uuid):
            guard let server = context.reader.server else { throw .skip("no GATT server") }
            let ident: BLEIdent
            do {
                guard
                    let derived = BLEIdent(
                        bytes: try BLEIdentDerivation.compute(eDeviceKeyBytes: context.engagement.eDeviceKeyBytes))
                else { throw CaseStop.skip("the BLE Ident is not 16 bytes") }
                ident = derived
            } catch {
                throw .skip("cannot derive the BLE Ident from the engagement: \(error)")
            }
            let role = RawGattServerRole(server: server, ident: ident)
            return (RawGattExchange(role: role, evidence: context.evidence), uuid)
        }
    }

    /// The well-formed request of a new session (signed with the run's identity).
    static func request(_ context: CaseContext) throws(CaseStop) -> (ReaderSession, [UInt8]) {
        var session = try context.session(identity: context.settings.identity)
        do {
            let message = try session.establishment(requesting: [context.settings.request])
            context.evidence.note("SessionEstablishment", bytes: message)
            return (session, message)
        } catch {
            throw .skip("cannot build the request: \(error)")
        }
    }

    /// The message the holder's chunks make, each chunk checked against the link's bound
    /// (``RawGattLink/holderChunkLimit``).
    static func assemble(_ received: RawGattExchange.Received, on link: RawGattLink) throws(CaseStop) -> [UInt8] {
        let (limit, bound) = link.holderChunkLimit()
        var message: [UInt8] = []
        for (index, chunk) in received.chunks.enumerated() {
            let last = index == received.chunks.count - 1
            guard chunk.count <= limit else {
                throw .fail("chunk \(index + 1) is \(chunk.count) bytes, over \(bound) = \(limit)")
            }
            guard let header = chunk.first, header == (last ? 0x00 : 0x01) else {
                let shown = chunk.first.map { "0x" + EvidenceLog.hex([$0]) } ?? "none"
                throw .fail(
                    "chunk \(index + 1) of \(received.chunks.count) has header \(shown), "
                        + "expected 0x\(last ? "00" : "01")" + (received.stoppedBy.map { " (then \($0))" } ?? ""))
            }
            message += chunk.dropFirst()
        }
        guard !received.chunks.isEmpty else {
            throw .fail("no chunk from the holder" + (received.stoppedBy.map { " (stopped by \($0))" } ?? ""))
        }
        return message
    }

    /// Fails when `received` makes a DeviceResponse readable with `session`; otherwise says
    /// what came back instead. `what` names what the holder should have left unanswered.
    static func unanswered(_ received: RawGattExchange.Received, session: ReaderSession, _ what: String)
        throws(CaseStop) -> String
    {
        var session = session
        let message = received.chunks.flatMap { $0.dropFirst() }
        if !received.chunks.isEmpty, case .response(let summary, _, _) = CaseContext.read(message, session: &session) {
            throw .fail("the holder answered \(what): \(summary)")
        }
        return received.chunks.isEmpty
            ? "no answer to \(what)" + (received.stoppedBy.map { " (\($0))" } ?? "")
            : "no DeviceResponse to \(what) (\(received.chunks.count) chunk(s) of something else)"
    }

    /// Sends the request in chunks for `writeMTU`, and reads a DeviceResponse out of the
    /// holder's chunks (each checked).
    static func chunked(_ context: CaseContext, writeMTU: Int?) async throws(CaseStop) -> String {
        let (raw, uuid) = try raw(context)
        var (session, request) = try request(context)
        let (link, chunks, received) = try await raw.exchange(uuid, timeout: context.settings.answerTimeout) {
            link throws(CaseStop) in try RawGattExchange.chunks(of: request, mtu: writeMTU, on: link)
        }
        await raw.end(link)
        let message = try assemble(received, on: link)
        let answer = CaseContext.read(message, session: &session)
        context.evidence.note("holder: \(answer)")
        guard case .response(let summary, _, _) = answer, summary.status == 0 else {
            throw .fail("expected a DeviceResponse with status 0, got \(answer)")
        }
        return "\(chunks.count) chunk(s) out, \(received.chunks.count) back with headers 0x01... 0x00: \(summary)"
    }

    static let smallestChunks = ConformanceCase(
        id: "BLE_Chunk_01", title: "the request in 20-byte chunks (ATT MTU 23, the smallest)",
        expectation: "the holder reassembles the request and answers with a DeviceResponse",
        reference: chunkReference, needsConsent: true
    ) { context throws(CaseStop) in
        try await chunked(context, writeMTU: MessageFragmenter.minimumMTU)
    }

    static let holderChunks = ConformanceCase(
        id: "BLE_Chunk_02",
        title: "every chunk of the holder's response (Server2Client; Client2Server in central-client mode)",
        expectation: "header 0x01 on every chunk but the last, 0x00 on the last, each at most min(512, MTU - 3) bytes",
        reference: chunkReference, needsConsent: true
    ) { context throws(CaseStop) in
        try await chunked(context, writeMTU: nil)
    }

    static let badChunkHeader = ConformanceCase(
        id: "BLE_Chunk_03", title: "a request whose first chunk has header 0x02 (neither 0x00 nor 0x01)",
        expectation: "no DeviceResponse: the holder drops the message or ends the session",
        reference: chunkReference
    ) { context throws(CaseStop) in
        let (raw, uuid) = try raw(context)
        let (session, request) = try request(context)
        let (link, _, received) = try await raw.exchange(uuid, timeout: context.settings.endGrace) {
            link throws(CaseStop) in
            var chunks = try RawGattExchange.chunks(of: request, mtu: nil, on: link)
            chunks[0][0] = 0x02
            return chunks
        }
        await raw.end(link)
        return try unanswered(received, session: session, "a message with a bad chunk header")
    }

    static let readerStateEnd = ConformanceCase(
        id: "BLE_State_01",
        title: "after the response, State 0x02 from the reader, then a further request on the same link",
        expectation: "State 0x02 ends the session: the further request gets no DeviceResponse (the holder "
            + "may disconnect)",
        reference: "ISO/IEC 18013-5 8.3.3.1.1.5 (State: 0x02 ends the data transfer), 9.1.1.4",
        needsConsent: true
    ) { context throws(CaseStop) in
        let (raw, uuid) = try raw(context)
        var (session, request) = try request(context)
        let connection = try await raw.reach(uuid, timeout: context.settings.answerTimeout)
        let chunks: [[UInt8]]
        do throws(CaseStop) {
            chunks = try RawGattExchange.chunks(of: request, mtu: nil, on: connection)
        } catch {
            await raw.drop()
            throw error
        }
        let first = await raw.send(chunks, on: connection, timeout: context.settings.answerTimeout)
        let message: [UInt8]
        do throws(CaseStop) {
            message = try assemble(first, on: connection)
        } catch {
            await raw.drop()
            throw error
        }
        guard case .response(let summary, _, _) = CaseContext.read(message, session: &session) else {
            await raw.drop()
            throw .fail("no DeviceResponse to the well-formed request, so State 0x02 could not be tested after one")
        }
        context.evidence.note("holder: a DeviceResponse (\(summary))")
        let further: [[UInt8]]
        do {
            further = try RawGattExchange.chunks(
                of: session.request([context.settings.request]), mtu: nil, on: connection)
        } catch {
            await raw.drop()
            throw .skip("cannot build the further request: \(error)")
        }
        let after = await raw.send(further, on: connection, state: .end, timeout: context.settings.endGrace)
        await raw.drop()
        return try unanswered(after, session: session, "a request sent after the reader's State 0x02")
    }

    static let disconnectMidResponse = ConformanceCase(
        id: "BLE_Disconnect_01",
        title: "a disconnect after the response's first chunk, then the same SessionEstablishment again",
        expectation: "the disconnect ends the session: the replayed SessionEstablishment on a new connection gets "
            + "no DeviceResponse (the same keys again would reuse AES-GCM nonces), or the holder is gone",
        reference: "ISO/IEC 18013-5 8.3.3.1.1.5 (connection end), 9.1.1.4 (session termination), "
            + "9.1.1.5 (IV from the message counter)",
        needsConsent: true
    ) { context throws(CaseStop) in
        let (raw, uuid) = try raw(context)
        let (session, request) = try request(context)
        let (_, chunks, first) = try await raw.exchange(
            uuid, timeout: context.settings.answerTimeout, firstChunkOnly: true
        ) { link throws(CaseStop) in try RawGattExchange.chunks(of: request, mtu: nil, on: link) }
        await raw.drop()
        guard let chunk = first.chunks.first else {
            throw .fail("no chunk of the response before the disconnect" + (first.stoppedBy.map { " (\($0))" } ?? ""))
        }
        guard chunk.first == ChunkHeader.more.rawValue else {
            throw .skip("the whole response fit in one chunk: there was no middle to disconnect in")
        }
        try? await Task.sleep(for: .milliseconds(500))
        let received: RawGattExchange.Received
        do {
            let link: RawGattLink
            (link, _, received) = try await raw.exchange(uuid, timeout: context.settings.endGrace) { _ in chunks }
            await raw.end(link)
        } catch {
            return "the holder could not be reached again after the disconnect (\(error))"
        }
        return try unanswered(received, session: session, "the SessionEstablishment replayed after the disconnect")
    }

    static let wrongIdent = ConformanceCase(
        id: "BLE_Ident_01", title: "central-client mode: our service serves an Ident that does not match",
        expectation: "the holder does not start the session (no State 0x01, no message) on a reader whose Ident "
            + "is not HKDF(EDeviceKeyBytes, \"BLEIdent\")",
        reference: "ISO/IEC 18013-5 8.3.3.1.1.4 (Ident characteristic)"
    ) { context throws(CaseStop) in
        guard case .centralClient(let uuid) = try context.bleMode() else {
            throw .skip("the Ident is checked in mdoc central-client mode (--mode central)")
        }
        guard let server = context.reader.server else { throw .skip("no GATT server") }
        let wrong = BLEIdent(bytes: [UInt8](repeating: 0x5A, count: 16))!
        let events: AsyncStream<MdocGattEvent>
        let channel: GattMessageChannel
        do {
            events = try await server.start(.centralClient(uuid, ident: wrong))
            channel = try await GattMessageChannel.serving(
                server, events: events, options: .init(maximumMessageSize: MessageSizeLimit.response))
        } catch {
            await server.stop()
            throw .fail("could not serve the mdoc service: \(error)")
        }
        context.evidence.note("serving \(uuid) with Ident \(EvidenceLog.hex(wrong.bytes))")
        let started = await channel.waitUntilStarted(timeout: context.settings.answerTimeout / 3)
        await channel.close()
        guard !started else { throw .fail("the holder started the session (State 0x01) despite the wrong Ident") }
        return "no session started within \(context.settings.answerTimeout / 3)"
    }
}
