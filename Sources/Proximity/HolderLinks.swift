import BLETransport
import ISO18013
import Synchronization

/// Where a reader showed up first.
enum ReaderArrival: Sendable {
    /// At our GATT service: its first event (the MTU, a subscription, a write).
    case gatt
    /// At our L2CAP listener (mdoc peripheral-server mode).
    case l2cap(any MdocL2CAPChannel)
    /// We reached the reader's GATT service (mdoc central-client mode).
    case central(MdocGattConnection)
}

/// The links of the modes a session offers, up before any reader comes: our GATT service as
/// a message channel and our L2CAP listener (mdoc peripheral-server mode), the scan for the
/// reader's service (mdoc central-client mode). ``firstArrival()`` waits for the first
/// reader on any of them (``FirstToConnect``) and lets the other mode go.
struct HolderLinks: Sendable {
    let setup: ProximityHolder
    let engagement: DeviceEngagement
    let listener: (any MdocL2CAPListener)?
    /// Our service's messages (peripheral-server mode); the session starts on it when the
    /// reader subscribes and writes State 0x01.
    let gatt: GattMessageChannel?
    /// What shows up on our side in peripheral-server mode: `.gatt` once, at the service's
    /// first event, and a reader's L2CAP channel.
    let peripheralArrivals: AsyncStream<ReaderArrival>
    private let tasks: [Task<Void, Never>]

    /// Serves our service and listens on L2CAP (peripheral-server mode).
    static func open(
        _ setup: ProximityHolder, engagement: DeviceEngagement, listener: (any MdocL2CAPListener)?,
        options: GattMessageChannel.Options
    ) async throws -> HolderLinks {
        let (arrivals, arrived) = AsyncStream<ReaderArrival>.makeStream()
        var gatt: GattMessageChannel?
        var tasks: [Task<Void, Never>] = []
        if let server = setup.server,
            let uuid = engagement.bleOptions?.peripheralServerUUID.flatMap({ BluetoothUUID(bytes: $0) })
        {
            let events = try await server.start(.peripheralServer(uuid, l2capPSM: listener?.psm))
            // The channel gets every event; the first one also tells that a reader came.
            let (seen, forward) = AsyncStream<MdocGattEvent>.makeStream()
            tasks.append(
                Task {
                    var first = true
                    for await event in events {
                        if first {
                            first = false
                            arrived.yield(.gatt)
                        }
                        forward.yield(event)
                    }
                    forward.finish()
                })
            gatt = try await GattMessageChannel.serving(server, events: seen, options: options)
        }
        if let listener {
            tasks.append(
                Task {
                    if let channel = try? await listener.accept() { arrived.yield(.l2cap(channel)) }
                })
        }
        return HolderLinks(
            setup: setup, engagement: engagement, listener: listener, gatt: gatt, peripheralArrivals: arrivals,
            tasks: tasks)
    }

    /// The first reader to show up, in either mode: at our service or L2CAP listener, or
    /// found by the scan for its service, which then stops; our service goes when the scan
    /// won. Nil when cancelled first.
    /// - Throws: the scan's error when central-client mode was the only one offered and it
    ///   failed for good.
    func firstArrival() async throws -> ReaderArrival? {
        var contenders: [FirstToConnect.Contender<ReaderArrival>] = []
        if setup.server != nil {
            contenders.append(
                .init(
                    connect: { [peripheralArrivals] in
                        for await arrival in peripheralArrivals { return arrival }
                        return nil
                    },
                    abandon: { [gatt, listener] in
                        listener?.close()
                        await gatt?.drop()
                    }))
        }
        let failure = ScanFailure()
        if let client = setup.centralClient,
            let uuid = engagement.bleOptions?.centralClientUUID.flatMap({ BluetoothUUID(bytes: $0) })
        {
            contenders.append(
                .init(
                    connect: {
                        do {
                            return .central(
                                try await client.connect(
                                    serviceUUID: uuid, characteristics: MdocBluetoothUUIDs.centralClient))
                        } catch {
                            failure.error.withLock { $0 = error }
                            return nil
                        }
                    },
                    abandon: { await client.disconnect() }))
        }
        let first = await FirstToConnect.race(contenders, timeout: nil) { [setup] late in
            switch late {
            case .gatt: break
            case .l2cap(let channel): channel.close()
            case .central: await setup.centralClient?.disconnect()
            }
        }
        if let first { return first.connection }
        if !Task.isCancelled, let error = failure.error.withLock({ $0 }) { throw error }
        return nil
    }

    /// Lets go of everything still up: the listener, our service, the reader's connection.
    func release() async {
        for task in tasks { task.cancel() }
        listener?.close()
        await gatt?.drop()
        await setup.server?.stop()
        await setup.centralClient?.disconnect()
    }

    /// The central scan's error, kept for when no other mode can bring a reader.
    private final class ScanFailure: Sendable {
        let error = Mutex<(any Error)?>(nil)
    }
}
