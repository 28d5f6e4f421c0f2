import BLETransport
import ISO18013

/// A GATT server (the holder's, in mdoc peripheral-server mode) that passes everything
/// through to `inner` (an ``InMemoryGattWire``'s server or BlueZ's) except what its faults
/// change on the way: a ``HolderFault``, and a stop that takes `stopDelay` first (as BlueZ's
/// UnregisterAdvertisement, UnregisterApplication and Disconnect do).
public struct FaultyGattServer: MdocGattServer {
    public let inner: any MdocGattServer
    public let fault: HolderFault?
    public let stopDelay: Duration?

    public init(_ inner: any MdocGattServer, fault: HolderFault? = nil, stopDelay: Duration? = nil) {
        self.inner = inner
        self.fault = fault
        self.stopDelay = stopDelay
    }

    /// One-chunk messages the faults look for.
    static let encryptionError = [ChunkHeader.last.rawValue] + SessionData(status: .sessionEncryptionError).encoded
    static let decodingError = [ChunkHeader.last.rawValue] + SessionData(status: .cborDecodingError).encoded
    static let termination = [ChunkHeader.last.rawValue] + SessionData(status: .sessionTermination).encoded

    public func start(_ service: MdocGattService) async throws -> AsyncStream<MdocGattEvent> {
        let events = try await inner.start(service)
        guard fault == .ignoresTermination else { return events }
        let (filtered, continuation) = AsyncStream<MdocGattEvent>.makeStream()
        let forward = Task {
            for await event in events {
                if case .written(.client2Server, let value) = event, value == Self.termination { continue }
                continuation.yield(event)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forward.cancel() }
        return filtered
    }

    public func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        var value = value
        switch fault {
        case .wrongStatusOnUndecryptable? where characteristic == .server2Client && value == Self.encryptionError:
            value = Self.decodingError
        case .badChunkHeader? where characteristic == .server2Client && value.first == ChunkHeader.more.rawValue:
            value[0] = 0x02
        default:
            break
        }
        try await inner.notify(characteristic, value)
    }

    public func stop() async {
        if let stopDelay { try? await Task.sleep(for: stopDelay) }
        await inner.stop()
    }
}
