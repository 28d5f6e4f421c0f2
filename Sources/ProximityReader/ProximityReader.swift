import BLETransport
import ISO18013

/// The reader's side of an ISO 18013-5 BLE session: reaches the holder in the mode chosen
/// from its engagement and hands back a ``MessageChannel``. In mdoc peripheral-server mode
/// it is the GATT client of the holder's service (or the holder's L2CAP channel, when asked
/// and offered); in mdoc central-client mode it serves the mdoc service with the Ident
/// derived from the engagement (and an L2CAP PSM, when asked), and the first way the holder
/// comes wins. The GATT roles and L2CAP are the seams of BLETransport, shared with the holder;
/// the executable gives it their BlueZ implementations, tests in-memory ones.
public struct ProximityReader: Sendable {
    /// The ATT MTU assumed until the link reports one (BlueZoo reports none; its MTU is 512).
    public static let assumedMTU = 512
    /// How long a State 0x02 or a disconnect of the holder is held while its chunks may still
    /// arrive (State and Server2Client are separate subscriptions).
    public static let holderEndGrace: Duration = .milliseconds(750)

    /// Peripheral-server mode: the GATT client.
    public var client: (any MdocGattClient)?
    /// Central-client mode: the GATT server.
    public var server: (any MdocGattServer)?
    /// Use L2CAP when the holder offers it (peripheral-server) or offer it (central-client).
    public var l2cap = false
    /// Central-client mode with ``l2cap``: opens the listener whose PSM we serve; when it
    /// throws (no Bluetooth sockets), GATT only.
    public var l2capListener: (@Sendable () throws -> any MdocL2CAPListener)?
    /// The bound on the holder starting the session (central-client mode).
    public var timeout: Duration
    /// Each step, for a verbose command line.
    public var log: @Sendable (String) -> Void

    public init(
        client: (any MdocGattClient)?, server: (any MdocGattServer)?, timeout: Duration,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.client = client
        self.server = server
        self.timeout = timeout
        self.log = log
    }

    /// The channel options of the reader: responses up to ``MessageSizeLimit/response``.
    static func channelOptions(peerEndGrace: Duration) -> GattMessageChannel.Options {
        GattMessageChannel.Options(
            maximumMessageSize: MessageSizeLimit.response, assumedMTU: assumedMTU, peerEndGrace: peerEndGrace)
    }

    /// Reaches the holder in `mode`; the session has started when this returns.
    public func connect(_ mode: ReaderBLEMode, engagement: DeviceEngagement) async throws(BLEReaderError)
        -> ReaderConnection
    {
        switch mode {
        case .peripheralServer(let uuid):
            return try await connect(to: uuid, psm: engagement.bleOptions?.l2capPSM)
        case .centralClient(let uuid):
            let ident: BLEIdent
            do {
                guard
                    let value = BLEIdent(
                        bytes: try BLEIdentDerivation.compute(eDeviceKeyBytes: engagement.eDeviceKeyBytes))
                else { throw BLEReaderError.engagement("the BLE Ident is not 16 bytes") }
                ident = value
            } catch {
                throw .engagement("cannot derive the BLE Ident from the engagement: \(error)")
            }
            return try await serve(uuid, ident: ident)
        }
    }

    // MARK: - Peripheral-server mode: we are the GATT client

    private func connect(to uuid: BluetoothUUID, psm offered: UInt64?) async throws(BLEReaderError) -> ReaderConnection
    {
        guard let client else { throw .link("no GATT client for mdoc peripheral-server mode") }
        let connection: MdocGattConnection
        do {
            connection = try await client.connect(
                serviceUUID: uuid, characteristics: MdocBluetoothUUIDs.peripheralServer)
        } catch {
            throw .link("\(error)")
        }
        log("connected; ATT MTU \(connection.mtu.map(String.init) ?? "\(Self.assumedMTU) (assumed)")")
        if l2cap, let channel = await openL2CAP(client, psm: offered.flatMap { UInt16(exactly: $0) }) {
            return ReaderConnection(channel: channel, overL2CAP: true, mtu: nil) { await client.disconnect() }
        }
        let channel: GattMessageChannel
        do {
            channel = try await GattMessageChannel.connected(
                client, connection: connection, expectedIdent: nil,
                options: Self.channelOptions(peerEndGrace: Self.holderEndGrace))
        } catch {
            await client.disconnect()
            throw .chunkError(error)
        }
        guard await channel.waitUntilStarted(timeout: timeout) else {
            await channel.close()
            throw .writeFailed(what: "State 0x01 (session start)", "the link went down")
        }
        log("session started (State 0x01)")
        return ReaderConnection(channel: channel, overL2CAP: false, mtu: await channel.mtu)
    }

    /// The holder's L2CAP channel, at the engagement's PSM or its PSM characteristic's; nil
    /// (GATT then) when it offers none or the channel does not open.
    private func openL2CAP(_ client: any MdocGattClient, psm: UInt16?) async -> (any MessageChannel)? {
        do {
            guard let socket = try await client.openL2CAP(psm: psm) else {
                log("the holder offers no L2CAP PSM; using GATT")
                return nil
            }
            return L2CAPMessageChannel(channel: socket, maximumMessageSize: MessageSizeLimit.response)
        } catch {
            log("L2CAP failed (\(error)); using GATT")
            return nil
        }
    }

    // MARK: - Central-client mode: we serve

    private func serve(_ uuid: BluetoothUUID, ident: BLEIdent) async throws(BLEReaderError) -> ReaderConnection {
        guard let server else { throw .serveFailed("no GATT server for mdoc central-client mode") }
        let listener = openListener()
        let events: AsyncStream<MdocGattEvent>
        do {
            events = try await server.start(.centralClient(uuid, ident: ident, l2capPSM: listener?.psm))
        } catch {
            listener?.close()
            throw .serveFailed("\(error)")
        }
        log("serving mdoc service \(uuid) and advertising it; waiting for the holder")
        if let listener { log("serving L2CAP PSM \(listener.psm) too") }
        let gatt: GattMessageChannel
        do {
            gatt = try await GattMessageChannel.serving(
                server, events: events, options: Self.channelOptions(peerEndGrace: .zero))
        } catch {
            listener?.close()
            await server.stop()
            throw .serveFailed("\(error)")
        }
        // The holder starts the session on our GATT service, or connects to our L2CAP PSM.
        var contenders: [FirstToConnect.Contender<Way>] = [
            .init(connect: { [timeout] in await gatt.waitUntilStarted(timeout: timeout) ? .gatt : nil })
        ]
        if let listener {
            contenders.append(
                .init(
                    connect: { (try? await listener.accept()).map { .l2cap($0) } },
                    abandon: { listener.close() }))
        }
        let first = await FirstToConnect.race(contenders, timeout: timeout) { way in
            if case .l2cap(let socket) = way { socket.close() }
        }
        listener?.close()
        switch first?.connection {
        case .gatt?:
            let mtu = await gatt.mtu
            log("the holder subscribed and started the session; ATT MTU \(mtu)")
            return ReaderConnection(channel: gatt, overL2CAP: false, mtu: mtu)
        case .l2cap(let socket)?:
            log("the holder opened our L2CAP channel")
            let channel = L2CAPMessageChannel(channel: socket, maximumMessageSize: MessageSizeLimit.response)
            return ReaderConnection(channel: channel, overL2CAP: true, mtu: nil) { await gatt.close() }
        case nil:
            await gatt.close()
            throw .holderDidNotStart(seconds: timeout / .seconds(1))
        }
    }

    /// How the holder came to us in central-client mode.
    private enum Way: Sendable {
        case gatt
        case l2cap(any MdocL2CAPChannel)
    }

    /// With ``l2cap``, a listener for the holder's channel; nil (GATT only) when none opens.
    private func openListener() -> (any MdocL2CAPListener)? {
        guard l2cap else { return nil }
        guard let open = l2capListener else {
            log("L2CAP not offered, GATT only: no L2CAP sockets")
            return nil
        }
        do {
            return try open()
        } catch {
            log("L2CAP not offered, GATT only: \(error)")
            return nil
        }
    }
}
