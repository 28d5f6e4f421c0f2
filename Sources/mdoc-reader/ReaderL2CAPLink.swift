import BLETransport
import L2CAP

/// The reader's L2CAP channel to a holder in mdoc peripheral-server mode: whole messages,
/// each one ``L2CAPFraming`` frame, over the channel to the PSM the holder offers. The GATT
/// connection it was found through stays open under it (the channel rides on the same LE
/// link) and closes with it.
struct ReaderL2CAPLink: ReaderGattLink {
    let gatt: BlueZReaderLink
    let channel: L2CAPMessageChannel
    let psm: UInt16
    /// The largest SDU the holder takes.
    let sendMTU: Int
    let events: AsyncStream<ReaderLinkEvent>
    private let pump: Task<Void, Never>

    var mtu: Int { gatt.mtu }
    var carriesMessages: Bool { true }

    /// The PSM to use: the engagement's (key 21) or the holder's PSM characteristic; nil
    /// when the holder offers neither.
    static func psm(engagement: UInt64?, link: BlueZReaderLink) async -> UInt16? {
        if let offered = engagement, let psm = UInt16(exactly: offered), L2CAPPSM.dynamicRange.contains(psm) {
            return psm
        }
        guard let characteristic = link.l2capPSM, let value = try? await characteristic.read() else { return nil }
        return L2CAPPSM.parse(value)
    }

    /// Opens the channel to `psm` on the holder `gatt` is connected to.
    static func open(over gatt: BlueZReaderLink, psm: UInt16, maximumMessageSize: Int) async throws(L2CAPError)
        -> ReaderL2CAPLink
    {
        let address = try BluetoothDeviceAddress(gatt.address, kind: gatt.randomAddress ? .leRandom : .lePublic)
        let socket = try await L2CAPChannel.connect(to: address, psm: psm)
        let channel = L2CAPMessageChannel(channel: socket, maximumMessageSize: maximumMessageSize)
        let (events, continuation) = AsyncStream<ReaderLinkEvent>.makeStream()
        let pump = Task {
            while true {
                do {
                    continuation.yield(.message(try await channel.receive()))
                } catch {
                    continuation.yield(.disconnected)
                    continuation.finish()
                    return
                }
            }
        }
        return ReaderL2CAPLink(
            gatt: gatt, channel: channel, psm: psm, sendMTU: socket.sendMTU, events: events, pump: pump)
    }

    func start() async throws {}

    func sendChunk(_ message: [UInt8]) async throws {
        try await channel.send(message)
    }

    func close() async {
        pump.cancel()
        await channel.close()
        await gatt.close()
    }
}
