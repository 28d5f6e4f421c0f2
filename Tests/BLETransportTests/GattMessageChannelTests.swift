import BLETestSupport
import BLETransport
import Testing

/// Both GATT roles of ``GattMessageChannel`` over one in-memory wire: a server-side channel
/// and a client-side channel carry messages both ways, in chunks of the MTU, and end with
/// State 0x02. A wait for something that must come allows 30 s (a whole `swift test` on two
/// busy cores can hold a test up for 25-30 s at its start); a wait that must come back empty
/// stays short.
struct GattMessageChannelTests {
    static let uuid = BluetoothUUID(high: 0x1234, low: 0x5678)
    static let ident = BLEIdent(bytes: [UInt8](0..<16))!
    static let options = GattMessageChannel.Options(maximumMessageSize: MessageSizeLimit.response)

    /// A served channel and a connected one on `wire`; `ident` is served and expected.
    static func pair(
        _ wire: InMemoryGattWire, served: MdocGattService, expectedIdent: BLEIdent?
    ) async throws -> (server: GattMessageChannel, client: GattMessageChannel) {
        let events = try await wire.server.start(served)
        let server = try await GattMessageChannel.serving(wire.server, events: events, options: options)
        let connection = try await wire.client.connect(
            serviceUUID: served.uuid, characteristics: served.characteristics)
        let client = try await GattMessageChannel.connected(
            wire.client, connection: connection, expectedIdent: expectedIdent, options: options)
        return (server, client)
    }

    @Test func messagesCrossBothWaysInEitherRoleAssignment() async throws {
        for (service, ident) in [
            (MdocGattService.peripheralServer(Self.uuid), nil),
            (MdocGattService.centralClient(Self.uuid, ident: Self.ident), Self.ident),
        ] {
            let wire = InMemoryGattWire(mtu: 64)
            let (server, client) = try await Self.pair(wire, served: service, expectedIdent: ident)
            #expect(await server.waitUntilStarted(timeout: .seconds(30)))
            #expect(await client.waitUntilStarted(timeout: .seconds(30)))
            let request = [UInt8](repeating: 0xA5, count: 1000)
            let response = (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
            try await client.send(request)
            #expect(await server.receive(timeout: .seconds(30)) == .message(request))
            try await server.send(response)
            #expect(await client.receive(timeout: .seconds(30)) == .message(response))
            await client.close()
            #expect(await server.receive(timeout: .seconds(30)) == .closed(.peerEnded))
            #expect(await wire.states.map(\.1) == [[0x01], [0x02]])
            #expect(await wire.clientDisconnected)
        }
    }

    @Test func aClientExpectingAnotherIdentSendsNothingAndEnds() async throws {
        let wire = InMemoryGattWire()
        let other = BLEIdent(bytes: [UInt8](repeating: 9, count: 16))!
        let (server, client) = try await Self.pair(
            wire, served: .centralClient(Self.uuid, ident: Self.ident), expectedIdent: other)
        #expect(await client.waitUntilStarted(timeout: .seconds(30)) == false)
        #expect(await client.receive(timeout: .seconds(30)) == .closed(.protocolError(.identMismatch)))
        #expect(await server.waitUntilStarted(timeout: .milliseconds(200)) == false)
        #expect(await wire.states.isEmpty)
        await #expect(throws: MessageChannelError.closed) { try await client.send([1]) }
    }

    @Test func aServerWhoseClientNeverStartsTimesOutWaiting() async throws {
        let wire = InMemoryGattWire()
        let events = try await wire.server.start(.peripheralServer(Self.uuid))
        let server = try await GattMessageChannel.serving(wire.server, events: events, options: Self.options)
        #expect(await server.waitUntilStarted(timeout: .milliseconds(100)) == false)
        #expect(await server.receive(timeout: .milliseconds(50)) == nil)
        await server.close()
        #expect(await wire.serverStopped)
        #expect(await wire.states.isEmpty)
    }

    @Test func aDisconnectAfterOurResponseIsOrderly() async throws {
        let wire = InMemoryGattWire()
        let (server, client) = try await Self.pair(wire, served: .peripheralServer(Self.uuid), expectedIdent: nil)
        try await client.send([1, 2, 3])
        #expect(await server.receive(timeout: .seconds(30)) == .message([1, 2, 3]))
        try await server.send([4, 5, 6])
        #expect(await client.receive(timeout: .seconds(30)) == .message([4, 5, 6]))
        await wire.client.disconnect()
        #expect(await server.receive(timeout: .seconds(30)) == .closed(.disconnectedAfterResponse))
    }

    /// The peer's disconnect reaches the session through the channel's event pump; the
    /// service must then be released from a task that is not cancelled, or BlueZ's
    /// UnregisterApplication/UnregisterAdvertisement would never be sent (a reader serving
    /// one session after another kept every finished session's advertisement up).
    @Test func aPeerDisconnectReleasesTheServiceFromATaskThatIsNotCancelled() async throws {
        let wire = InMemoryGattWire()
        let (server, client) = try await Self.pair(wire, served: .peripheralServer(Self.uuid), expectedIdent: nil)
        try await client.send([1, 2, 3])
        #expect(await server.receive(timeout: .seconds(30)) == .message([1, 2, 3]))
        await wire.client.disconnect()
        #expect(await server.receive(timeout: .seconds(30)) == .closed(.disconnected))
        #expect(await wire.serverStopped)
        #expect(await wire.serverStoppedInCancelledTask == false)
    }

    @Test func aCappedChunkSizeHoldsForEveryChunk() async throws {
        let wire = InMemoryGattWire(mtu: 517)
        var options = Self.options
        options.maximumChunkSize = 100
        let events = try await wire.server.start(.peripheralServer(Self.uuid))
        let server = try await GattMessageChannel.serving(wire.server, events: events, options: options)
        let connection = try await wire.client.connect(
            serviceUUID: Self.uuid, characteristics: MdocBluetoothUUIDs.peripheralServer)
        let client = try await GattMessageChannel.connected(
            wire.client, connection: connection, expectedIdent: nil, options: Self.options)
        #expect(await server.waitUntilStarted(timeout: .seconds(30)))
        #expect(await server.mtu == 103)
        try await server.send([UInt8](repeating: 7, count: 1000))
        #expect(await client.receive(timeout: .seconds(30)) == .message([UInt8](repeating: 7, count: 1000)))
    }

    /// The client learns the MTU from its connection, before any MTU event: the cap applies
    /// to that MTU as well (the holder in central-client mode behind a lossy controller).
    @Test func aCappedChunkSizeHoldsForTheConnectionsMTUToo() async throws {
        let wire = InMemoryGattWire(mtu: 517)
        var options = Self.options
        options.maximumChunkSize = 100
        let events = try await wire.server.start(.centralClient(Self.uuid, ident: Self.ident))
        let server = try await GattMessageChannel.serving(wire.server, events: events, options: Self.options)
        let connection = try await wire.client.connect(
            serviceUUID: Self.uuid, characteristics: MdocBluetoothUUIDs.centralClient)
        #expect(connection.mtu == 517)
        let client = try await GattMessageChannel.connected(
            wire.client, connection: connection, expectedIdent: Self.ident, options: options)
        #expect(await client.waitUntilStarted(timeout: .seconds(30)))
        #expect(await client.mtu == 103)
        try await client.send([UInt8](repeating: 7, count: 1000))
        #expect(await server.receive(timeout: .seconds(30)) == .message([UInt8](repeating: 7, count: 1000)))
    }

    /// A message for a client that never subscribed waits, and the channel says since when;
    /// dropping the channel ends it at once, with nothing sent and the service released.
    @Test func aMessageNobodyTakesWaitsUntilTheChannelIsDropped() async throws {
        let wire = InMemoryGattWire()
        let events = try await wire.server.start(.peripheralServer(Self.uuid))
        let server = try await GattMessageChannel.serving(wire.server, events: events, options: Self.options)
        // The client connects and writes State 0x01 without subscribing to Server2Client.
        _ = try await wire.client.connect(serviceUUID: Self.uuid, characteristics: MdocBluetoothUUIDs.peripheralServer)
        try await wire.client.write(.state, [0x01])
        #expect(await server.waitUntilStarted(timeout: .seconds(30)))
        #expect(await server.outputWaitingSince == nil)
        let before = ContinuousClock.now
        try await server.send([1, 2, 3])
        let since = try #require(await server.outputWaitingSince)
        #expect(since >= before)
        await server.drop()
        #expect(await server.receive(timeout: .seconds(30)) == .closed(.disconnected))
        #expect(await wire.serverStopped)
        #expect(await wire.states.map(\.1) == [[0x01]])
        #expect(await server.close() == .disconnected)
    }

    /// close() says how the session ended: as asked, or by the peer first.
    @Test func closeReportsHowTheSessionEnded() async throws {
        let wire = InMemoryGattWire()
        let (server, client) = try await Self.pair(wire, served: .peripheralServer(Self.uuid), expectedIdent: nil)
        #expect(await server.waitUntilStarted(timeout: .seconds(30)))
        #expect(await client.close() == .localEnded)
        #expect(await server.receive(timeout: .seconds(30)) == .closed(.peerEnded))
        #expect(await server.close() == .peerEnded)
    }

    /// When the peer's disconnect ends the session, the receiver hears of it only once the
    /// service is released, and a drop() (or close()) that comes while the release is under
    /// way returns only once it is done. A holder that went on earlier showed its next
    /// engagement while the last session's Disconnect was still to go out, and that
    /// Disconnect cut the next reader's connection (VM case-20, on a loaded machine).
    @Test(arguments: [false, true])
    func aReleaseUnderWayIsWaitedFor(dropMeanwhile: Bool) async throws {
        let wire = InMemoryGattWire()
        let slow = FaultyGattServer(wire.server, stopDelay: .milliseconds(300))
        let events = try await slow.start(.peripheralServer(Self.uuid))
        let server = try await GattMessageChannel.serving(slow, events: events, options: Self.options)
        let connection = try await wire.client.connect(
            serviceUUID: Self.uuid, characteristics: MdocBluetoothUUIDs.peripheralServer)
        let client = try await GattMessageChannel.connected(
            wire.client, connection: connection, expectedIdent: nil, options: Self.options)
        try await client.send([1, 2, 3])
        #expect(await server.receive(timeout: .seconds(30)) == .message([1, 2, 3]))
        await wire.client.disconnect()
        if dropMeanwhile {
            // The pump has taken the disconnect and is in the 300 ms stop.
            try await Task.sleep(for: .milliseconds(50))
            await server.drop()
        } else {
            #expect(await server.receive(timeout: .seconds(30)) == .closed(.disconnected))
        }
        #expect(await wire.serverStopped)
    }
}
