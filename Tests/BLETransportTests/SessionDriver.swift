import BLETransport

/// Plays the GATT layer around a ``BLESession``: feeds events, confirms each chunk at once
/// (unless told not to), reassembles what the holder sends as the reader would, and checks
/// that no second chunk is handed out while one is unconfirmed.
struct SessionDriver {
    var session: BLESession
    var confirmChunks = true
    private(set) var outputs: [BLESessionOutput] = []
    private(set) var readerReceived: [[UInt8]] = []
    private(set) var stateSent: [BLEStateValue] = []
    private(set) var chunksSent = 0
    private(set) var twoChunksInFlight = false
    private var inFlight = false
    private var readerAssembler = MessageAssembler(maximumMessageSize: MessageSizeLimit.request)

    init(_ session: BLESession) {
        self.session = session
    }

    /// The holder's messages delivered to the engine so far.
    var delivered: [[UInt8]] {
        outputs.compactMap {
            if case .messageReceived(let m) = $0 { return m }
            return nil
        }
    }

    var ended: (BLESessionEndReason, TransferProgress?)? {
        for o in outputs {
            if case .sessionEnded(let reason, let transfer) = o { return (reason, transfer) }
        }
        return nil
    }

    /// Feeds one event; with `confirmChunks`, also confirms every chunk it hands out until
    /// none is left. Returns the outputs of `event` alone.
    @discardableResult
    mutating func feed(_ event: BLESessionEvent) -> [BLESessionOutput] {
        let first = step(event)
        while confirmChunks, inFlight, !session.isEnded {
            step(.chunkSent)
        }
        return first
    }

    @discardableResult
    private mutating func step(_ event: BLESessionEvent) -> [BLESessionOutput] {
        if event == .chunkSent { inFlight = false }
        let new = session.handle(event)
        outputs += new
        for output in new {
            switch output {
            case .sendChunk(let chunk):
                if inFlight { twoChunksInFlight = true }
                inFlight = true
                chunksSent += 1
                if let m = try? readerAssembler.append(chunk) { readerReceived.append(m) }
            case .sendState(let value):
                stateSent.append(value)
            default:
                break
            }
        }
        return new
    }

    /// The reader writes a whole message as chunks.
    mutating func readerSends(_ message: [UInt8], mtu: Int = 517) throws {
        for chunk in try MessageFragmenter(mtu: mtu).chunks(of: message) {
            feed(.chunkReceived(chunk))
        }
    }
}
